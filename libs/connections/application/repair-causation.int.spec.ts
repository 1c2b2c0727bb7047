import { systemClock, withRequestContext, type EventMetadata } from '@lore/platform/kernel';
import type { EventStore } from '@lore/platform/event-store/port';
import { handleCommand } from '@lore/platform/cqrs';
import { send } from '@lore/platform/transport/port';
import { startContext, type RunningContext } from '@lore/platform/testing';
import { connectionMessages } from '@lore/connections/contracts';
import { connectionStreamId, credentialStreamId } from '@lore/connections/domain';
import { CATALOG } from './catalog/catalog-entries';
import { connectionsContext } from './connections.context';
import { connectionAggregate } from './connection.commands';
import { CredentialVault } from './credential-vault';
import { credentialSweep } from './credential-sweep.worker';
import { interruptedTests } from './interrupted-tests.worker';

const owner = { workspaceId: 'ws', userId: 'alice', actor: 'user:alice' };
const messages = connectionMessages({ maxConfigBytes: 16384, maxCredentialsBytes: 16384 });
const silent = { warn: () => undefined, error: () => undefined };
const method = CATALOG.find((e) => e.id === 'openai')?.auth_methods[0];

/** The store, with the metadata of every event appended through it noted per stream (erased streams cannot be read back). */
function noting(store: EventStore): { store: EventStore; appended: Map<string, EventMetadata[]> } {
  const appended = new Map<string, EventMetadata[]>();
  const proxy = new Proxy(store, {
    get(target, property, receiver) {
      if (property !== 'append') return Reflect.get(target, property, receiver) as unknown;
      return async (streamId: string, events: Parameters<EventStore['append']>[1], expected: Parameters<EventStore['append']>[2]) => {
        const result = await target.append(streamId, events, expected);
        appended.set(streamId, [...(appended.get(streamId) ?? []), ...events.map((e) => e.metadata ?? {})]);
        return result;
      };
    },
  });
  return { store: proxy, appended };
}

/**
 * Repairs by the background workers are caused by the stored event whose follow-up a crash cut
 * off: the end of an interrupted test by the test's start, the release of a left-behind
 * credential by the event that attached it. They carry its id and its request's correlation.
 */
describe('repairs record their cause', () => {
  let running: RunningContext;
  beforeAll(async () => {
    running = await startContext(connectionsContext);
  });
  afterAll(() => running.stop());

  it('an interrupted test is ended as caused by its start', async () => {
    const created = await send(running.transport, messages.create, { ...owner, integration: 'custom', label: 'cut off' }, { requestId: 'req-create' });
    const stores = await running.openStores();
    try {
      const stream = connectionStreamId(created.id);
      await withRequestContext({ requestId: 'req-test' }, () =>
        handleCommand(stores.events, connectionAggregate, stream, { kind: 'start-test', workspaceId: 'ws', userId: 'alice', staleTestMs: 60_000, at: new Date().toISOString() }, { metadata: { actor: 'user:alice', workspaceId: 'ws' } }),
      );
      const started = (await stores.events.readStream(stream)).at(-1);
      for (let i = 0; i < 100 && (await send(running.transport, messages.get, { ...owner, connectionId: created.id })).status !== 'testing'; i++) await new Promise((r) => setTimeout(r, 20));
      const worker = interruptedTests({ events: stores.events, documents: stores.documents, clock: { now: () => new Date(Date.now() + 61_000) }, log: silent, config: { staleTestMs: 60_000 } });
      expect(await worker.end()).toBe(1);
      const ended = (await stores.events.readStream(stream)).at(-1);
      expect(ended?.type).toBe('connections.ConnectionStatusChanged');
      expect(ended?.metadata).toMatchObject({ causationId: started?.id, correlationId: 'req-test', actor: 'user:alice', workspaceId: 'ws' });
      expect(ended?.metadata).not.toHaveProperty('requestId');
    } finally {
      await stores.close();
    }
  });

  it('a credential left behind is released as caused by the event that attached it', async () => {
    if (method === undefined) throw new Error('catalog without openai');
    const stores = await running.openStores();
    try {
      const { store, appended } = noting(stores.events);
      const vault = new CredentialVault({ events: store, keyring: stores.keyring, clock: systemClock });
      await withRequestContext({ requestId: 'req-cut-off' }, () =>
        vault.store(owner, { credentialId: 'cred_left', integration: 'openai', method, values: { api_key: 'sk-proj-leftleftleftleftleftleft' }, attachedTo: 'conn_never_created' }, { actor: 'user:alice', workspaceId: 'ws' }),
      );
      const [stored] = await stores.events.readStream(credentialStreamId('cred_left'));
      for (let i = 0; i < 100 && (await stores.documents.collection('credentials').get('cred_left')) === null; i++) await new Promise((r) => setTimeout(r, 20));
      const sweep = credentialSweep({ events: store, documents: stores.documents, vault, clock: { now: () => new Date(Date.now() + 60_000) }, log: silent, config: { sweepGraceMs: 30_000 } });
      expect(await sweep.sweep()).toBe(1);
      const [, ...released] = appended.get(credentialStreamId('cred_left')) ?? [];
      expect(released.length).toBeGreaterThan(0);
      for (const metadata of released) {
        expect(metadata).toMatchObject({ causationId: stored?.id, correlationId: 'req-cut-off', actor: 'user:alice', workspaceId: 'ws' });
        expect(metadata).not.toHaveProperty('requestId');
        expect(JSON.stringify(metadata)).not.toContain('sk-proj');
      }
    } finally {
      await stores.close();
    }
  });
});
