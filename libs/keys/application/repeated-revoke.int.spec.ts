import { randomUUID } from 'node:crypto';
import { send } from '@lore/platform/transport/port';
import { recordingEventStore, startContext, until, withContextDeps, type RecordedStoreCall, type RunningContext } from '@lore/platform/testing';
import { keysMessages } from '@lore/keys/contracts';
import { apiKeyStreamId } from '@lore/keys/domain';
import { keysContext } from './keys.context';

const scope = { workspaceId: 'ws', actor: 'user:alice' };
const alice = { kind: 'user', userId: 'alice' } as const;

/** Revoking a revoked key again answers as before, without walking the keys below it once their revocation is complete. */
describe('a repeated revoke', () => {
  let running: RunningContext;
  let calls: RecordedStoreCall[] = [];
  beforeAll(async () => {
    running = await startContext(
      withContextDeps(keysContext, (deps) => {
        const recording = recordingEventStore(deps.events);
        calls = recording.calls;
        return { ...deps, events: recording.store };
      }),
    );
  });
  afterAll(() => running.stop());

  /** A key, the key it created, and the key that one created. */
  const lineage = async () => {
    const top = await send(running.transport, keysMessages.create, { ...scope, grantor: alice, label: 'top', permissions: ['api_keys:write', 'memories:read'] });
    const child = await send(running.transport, keysMessages.create, { ...scope, grantor: { kind: 'api_key', keyId: top.id }, label: 'child' });
    const grandchild = await send(running.transport, keysMessages.create, { ...scope, grantor: { kind: 'api_key', keyId: child.id }, label: 'grandchild' });
    return { top, child, grandchild };
  };
  const revoke = (keyId: string) => send(running.transport, keysMessages.revoke, { ...scope, keyId, grantor: alice });
  const status = async (keyId: string) => (await send(running.transport, keysMessages.get, { ...scope, keyId })).status;

  it('reads none of the revoked descendants again, and answers the same', async () => {
    const { top, child, grandchild } = await lineage();
    const first = await revoke(top.id);
    expect([await status(child.id), await status(grandchild.id)]).toEqual(['revoked', 'revoked']);
    const from = calls.length;
    expect(await revoke(top.id)).toEqual(first);
    const read = calls.slice(from).filter((c) => c.op === 'readStream').map((c) => c.streamId);
    expect(read).toEqual([apiKeyStreamId(top.id)]);
  });

  it('still completes a cascade a crash cut short', async () => {
    const { top, child, grandchild } = await lineage();
    // Only the top key's revocation reaches the log, as if the process died before the cascade.
    const stores = await running.openStores();
    try {
      await stores.events.append(apiKeyStreamId(top.id), [{ id: randomUUID(), type: 'keys.ApiKeyRevoked', data: { keyId: top.id, workspaceId: 'ws', revokedAt: new Date().toISOString(), cascadedFrom: null } }], 0);
    } finally {
      await stores.close();
    }
    await until(() => status(top.id), (s) => s === 'revoked', 5_000);
    expect(await status(child.id)).toBe('active');
    await revoke(top.id);
    expect([await status(child.id), await status(grandchild.id)]).toEqual(['revoked', 'revoked']);
    // Completed now, and recorded so: the next repeat walks nothing.
    const from = calls.length;
    await revoke(top.id);
    expect(calls.slice(from).filter((c) => c.op === 'readStream').map((c) => c.streamId)).toEqual([apiKeyStreamId(top.id)]);
  });
});
