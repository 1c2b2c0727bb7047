import { randomUUID } from 'node:crypto';
import { send } from '@lore/platform/transport/port';
import { startContext, type RunningContext } from '@lore/platform/testing';
import { keysMessages } from '@lore/keys/contracts';
import { keysContext } from './keys.context';

/** Delegation limits hold for any caller on the transport: the keys service reads the grantor's grants itself. */
describe('keys context, called directly on the transport', () => {
  let running: RunningContext;
  const scope = { workspaceId: 'ws', actor: 'user:alice' };

  beforeAll(async () => {
    running = await startContext(keysContext);
  });
  afterAll(async () => {
    await running.stop();
  });

  const attempt = (payload: unknown): Promise<unknown> => running.transport.request(keysMessages.create.subject, payload).then(() => null, (e: unknown) => e);

  it('refuses what the grantor key does not cover, whatever the request claims', async () => {
    const parent = await send(running.transport, keysMessages.create, {
      ...scope,
      grantor: { kind: 'user', userId: 'alice' },
      label: 'parent',
      permissions: ['api_keys:write', 'memories:read'],
      ipWhitelist: ['127.0.0.1'],
    });
    const grantor = { kind: 'api_key', keyId: parent.id } as const;
    expect(await attempt({ ...scope, grantor, label: 'c', permissions: ['*'] })).toMatchObject({ code: 'forbidden' });
    expect(await attempt({ ...scope, grantor, label: 'c', ipWhitelist: [] })).toMatchObject({ code: 'forbidden' });
    expect(await attempt({ ...scope, grantor: { kind: 'api_key', keyId: 'key_nonexistent' }, label: 'c' })).toMatchObject({ code: 'forbidden' });
    expect(await attempt({ ...scope, workspaceId: 'other', grantor, label: 'c' })).toMatchObject({ code: 'forbidden' });
    const child = await send(running.transport, keysMessages.create, { ...scope, grantor, label: 'child' });
    expect(child).toMatchObject({ permissions: ['api_keys:write', 'memories:read'], ip_whitelist: ['127.0.0.1'] });
  });

  it('validates every request with the message schema', async () => {
    expect(await attempt({ ...scope, grantor: { kind: 'user', userId: 'alice' }, label: 'k', permissions: ['memories:delete'] })).toMatchObject({ code: 'validation' });
    expect(await attempt({ ...scope, grantor: { kind: 'robot' }, label: 'k' })).toMatchObject({ code: 'validation' });
  });

  it("refuses a key whose creator is revoked even when the cascade never ran (a crash right after the creator's revocation)", async () => {
    const parent = await send(running.transport, keysMessages.create, { ...scope, grantor: { kind: 'user', userId: 'alice' }, label: 'parent', permissions: ['api_keys:write', 'memories:read'] });
    const child = await send(running.transport, keysMessages.create, { ...scope, grantor: { kind: 'api_key', keyId: parent.id }, label: 'child' });
    expect(await send(running.transport, keysMessages.authenticate, { token: child.key })).toMatchObject({ keyId: child.id });
    // Only the creator's revocation reaches the log, as if the process died before the cascade.
    const stores = await running.openStores();
    await stores.events.append(`apikey-${parent.id}`, [{ id: randomUUID(), type: 'keys.ApiKeyRevoked', data: { keyId: parent.id, workspaceId: 'ws', revokedAt: new Date().toISOString(), cascadedFrom: null } }], 0);
    await stores.close();
    const authenticate = (token: string): Promise<unknown> => running.transport.request(keysMessages.authenticate.subject, { token }).then(() => null, (e: unknown) => e);
    for (let i = 0; i < 100 && (await authenticate(parent.key)) === null; i++) await new Promise((r) => setTimeout(r, 20));
    expect(await authenticate(parent.key)).toMatchObject({ code: 'unauthenticated' });
    expect(await authenticate(child.key)).toMatchObject({ code: 'unauthenticated' });
  });

  it("records who minted a key: an administrator's acts for others; a user of no stated role is a member", async () => {
    const admin = await send(running.transport, keysMessages.create, { ...scope, grantor: { kind: 'user', userId: 'ada', role: 'admin' }, label: 'ops', permissions: ['api_keys:write', 'memories:read'] });
    const member = await send(running.transport, keysMessages.create, { ...scope, grantor: { kind: 'user', userId: 'mia' }, label: 'mine' });
    expect([admin.acts_for_others, member.acts_for_others]).toEqual([true, false]);
    expect(await send(running.transport, keysMessages.authenticate, { token: admin.key })).toMatchObject({ createdBy: 'ada', actsForOthers: true });
    expect(await send(running.transport, keysMessages.authenticate, { token: member.key })).toMatchObject({ createdBy: 'mia', actsForOthers: false });
    const child = await send(running.transport, keysMessages.create, { ...scope, grantor: { kind: 'api_key', keyId: admin.id }, label: 'child' });
    expect(await send(running.transport, keysMessages.get, { ...scope, keyId: child.id })).toMatchObject({ created_by: 'ada', acts_for_others: true });
  });

  it('lets a key projected before roles (no acts_for_others) act only for its creator', async () => {
    const key = await send(running.transport, keysMessages.create, { ...scope, grantor: { kind: 'user', userId: 'ada', role: 'admin' }, label: 'old' });
    const stores = await running.openStores();
    const docs = stores.documents.collection<Record<string, unknown> & { id: string }>('api_keys');
    const { acts_for_others: _dropped, ...before } = (await docs.get(key.id)) ?? { id: key.id };
    await docs.upsert(before);
    await stores.close();
    expect(await send(running.transport, keysMessages.authenticate, { token: key.key })).toMatchObject({ createdBy: 'ada', actsForOthers: false });
    expect(await send(running.transport, keysMessages.get, { ...scope, keyId: key.id })).toMatchObject({ acts_for_others: false });
  });
});

