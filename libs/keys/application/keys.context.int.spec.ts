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
});
