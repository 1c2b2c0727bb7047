import { systemClock } from '@lore/platform/kernel';
import { sealedKeyId } from '@lore/platform/crypto';
import { startContext, type RunningContext } from '@lore/platform/testing';
import { CATALOG } from './catalog/catalog-entries';
import { CredentialVault } from './credential-vault';
import { credentialSweep } from './credential-sweep.worker';
import { connectionsContext } from './connections.context';
import { connectionMessages } from '@lore/connections/contracts';
import { connectionStreamId } from '@lore/connections/domain';
import { send } from '@lore/platform/transport/port';

const owner = { workspaceId: 'ws', userId: 'alice', actor: 'user:alice' };
const openai = CATALOG.find((e) => e.id === 'openai');
const method = openai?.auth_methods[0];
const silent = { warn: () => undefined, error: () => undefined };

/**
 * A crash between storing a credential and creating the connection that uses it leaves the
 * credential attached to a connection that never came: the sweep lets go, which erases it and
 * shreds its key. A credential in use is left alone.
 */
describe('credential sweep', () => {
  let running: RunningContext;
  beforeAll(async () => {
    running = await startContext(connectionsContext);
  });
  afterAll(() => running.stop());

  it('erases a credential left behind by an interrupted create, and keeps one in use', async () => {
    if (method === undefined) throw new Error('catalog without openai');
    const stores = await running.openStores();
    try {
      const vault = new CredentialVault({ events: stores.events, keyring: stores.keyring, clock: systemClock });
      await vault.store(owner, { credentialId: 'cred_orphan', integration: 'openai', method, values: { api_key: 'sk-proj-orphanorphanorphanorphan' }, attachedTo: 'conn_never_created' }, {});
      const used = await send(running.transport, connectionMessages({ maxConfigBytes: 16384, maxCredentialsBytes: 16384 }).create, {
        ...owner,
        integration: 'openai',
        label: 'kept',
        credentials: { api_key: 'sk-proj-keptkeptkeptkeptkeptkept' },
      });
      const orphanKey = sealedKeyId((await vault.open(owner, 'cred_orphan')).credential.secret);
      const usedKey = sealedKeyId((await vault.open(owner, used.credential_id ?? '')).credential.secret);
      // Wait for the read model to list the orphan (the sweep reads it from there).
      for (let i = 0; i < 100 && (await stores.documents.collection('credentials').get('cred_orphan')) === null; i++) await new Promise((r) => setTimeout(r, 20));

      const later = { now: () => new Date(Date.now() + 60_000) };
      const sweep = credentialSweep({ events: stores.events, documents: stores.documents, vault, clock: later, log: silent, config: { sweepGraceMs: 30_000 } });
      expect(await sweep.sweep()).toBe(1);
      await expect(vault.open(owner, 'cred_orphan')).rejects.toMatchObject({ code: 'not_found' });
      // The erasure reactor of the running context shreds the key; a fresh keyring has no cached copy.
      const keyExists = async (keyId: string) => {
        const fresh = await running.openStores();
        try {
          return (await fresh.keyring.get(keyId)) !== null;
        } finally {
          await fresh.close();
        }
      };
      for (let i = 0; i < 100 && (await keyExists(orphanKey)); i++) await new Promise((r) => setTimeout(r, 20));
      expect(await keyExists(orphanKey)).toBe(false);
      expect(await keyExists(usedKey)).toBe(true);
      expect(await sweep.sweep()).toBe(0);
    } finally {
      await stores.close();
    }
  });

  it('keeps going past a credential it cannot release: that one is logged, the others are released', async () => {
    if (method === undefined) throw new Error('catalog without openai');
    const stores = await running.openStores();
    try {
      const vault = new CredentialVault({ events: stores.events, keyring: stores.keyring, clock: systemClock });
      // A connection stream no decider can fold (as a bug in an older version could have left), and a credential attached to it.
      await stores.events.append(connectionStreamId('conn_broken'), [{ id: crypto.randomUUID(), type: 'connections.ConnectionCreated', data: { not: 'a connection' } }], 'no_stream');
      await vault.store(owner, { credentialId: 'cred_aa_stuck', integration: 'openai', method, values: { api_key: 'sk-proj-stuckstuckstuckstuckstuck' }, attachedTo: 'conn_broken' }, {});
      await vault.store(owner, { credentialId: 'cred_zz_orphan', integration: 'openai', method, values: { api_key: 'sk-proj-orphanorphanorphanorphan' }, attachedTo: 'conn_never_created_2' }, {});
      for (let i = 0; i < 100 && (await stores.documents.collection('credentials').get('cred_zz_orphan')) === null; i++) await new Promise((r) => setTimeout(r, 20));

      const logged: Record<string, unknown>[] = [];
      const log = { warn: () => undefined, error: (details: Record<string, unknown>) => void logged.push(details) };
      const later = { now: () => new Date(Date.now() + 60_000) };
      const sweep = credentialSweep({ events: stores.events, documents: stores.documents, vault, clock: later, log, config: { sweepGraceMs: 30_000 } });
      expect(await sweep.sweep()).toBe(1);
      expect(logged).toMatchObject([{ credentialId: 'cred_aa_stuck', connectionId: 'conn_broken' }]);
      await expect(vault.open(owner, 'cred_zz_orphan')).rejects.toMatchObject({ code: 'not_found' });
    } finally {
      await stores.close();
    }
  });
});
