import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { send } from '@lore/platform/transport/port';
import { startContext, type RunningContext } from '@lore/platform/testing';
import { connectionMessages } from '@lore/connections/contracts';
import { handleCommand } from '@lore/platform/cqrs';
import { connectionStreamId } from '@lore/connections/domain';
import { connectionsContext } from './connections.context';
import { connectionAggregate } from './connection.commands';
import { interruptedTests, INTERRUPTED_TEST_REASON } from './interrupted-tests.worker';

const owner = { workspaceId: 'ws', userId: 'alice', actor: 'user:alice' };
const messages = connectionMessages({ maxConfigBytes: 16384, maxCredentialsBytes: 16384 });

/**
 * A GitLab stand-in whose refresh tokens rotate (each works once) and whose access tokens are
 * accepted only when current; `/slow` answers its user endpoint after a delay.
 */
function gitlabStandIn() {
  let refreshToken = 'refresh-0';
  let accessToken = 'none-issued-yet';
  let issued = 0;
  const refreshes: string[] = [];
  const server: Server = createServer((request, response) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      const path = (request.url ?? '').replace(/^\/(fast|slow)/, '');
      const json = (status: number, body: unknown) => response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (path === '/oauth/token') {
        const form = new URLSearchParams(Buffer.concat(chunks).toString());
        refreshes.push(form.get('refresh_token') ?? '');
        if (form.get('refresh_token') !== refreshToken) return json(400, { error: 'invalid_grant' });
        issued++;
        refreshToken = `refresh-${issued}`;
        accessToken = `access-${issued}-fresh`;
        return json(200, { access_token: accessToken, refresh_token: refreshToken, expires_in: 7200, token_type: 'Bearer' });
      }
      if (request.url?.startsWith('/slow')) await new Promise((r) => setTimeout(r, 800));
      json(request.headers.authorization === `Bearer ${accessToken}` ? 200 : 401, {});
    })();
  });
  return { server, refreshes, start: () => new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port))) };
}

describe('connection tests: token refresh', () => {
  let running: RunningContext;
  const standIn = gitlabStandIn();
  let base = '';
  beforeAll(async () => {
    base = `http://127.0.0.1:${await standIn.start()}`;
    running = await startContext(connectionsContext, { LORE_EGRESS_ALLOW: '127.0.0.1' });
  });
  afterAll(async () => {
    await running.stop();
    standIn.server.close();
  });

  it('uses a refresh made meanwhile by another test instead of spending a rotated refresh token again', async () => {
    const credentials = { access_token: 'access-0-stale', refresh_token: 'refresh-0' };
    const fast = await send(running.transport, messages.create, { ...owner, integration: 'gitlab', authMethodId: 'oauth2', label: 'fast', config: { base_url: `${base}/fast` }, credentials });
    const slow = await send(running.transport, messages.create, { ...owner, integration: 'gitlab', label: 'slow', config: { base_url: `${base}/slow` }, credentialId: fast.credential_id ?? '' });
    // The slow one reads the credential, waits for its 401 while the fast one refreshes and finishes, then needs a refresh too.
    const [slowResult, fastResult] = await Promise.all([send(running.transport, messages.test, { ...owner, connectionId: slow.id }), send(running.transport, messages.test, { ...owner, connectionId: fast.id })]);
    expect(standIn.refreshes).toEqual(['refresh-0']);
    expect(fastResult).toMatchObject({ success: true, token_refreshed: true });
    expect(slowResult).toMatchObject({ success: true, status: 'active', token_refreshed: true });
    expect((await send(running.transport, messages.get, { ...owner, connectionId: slow.id })).credential?.version).toBe(2);
  });
});

describe('connection tests: interruption', () => {
  let running: RunningContext;
  beforeAll(async () => {
    running = await startContext(connectionsContext);
  });
  afterAll(() => running.stop());

  it('ends a test a crash cut off as error once it is stale, so the connection can be changed again', async () => {
    const created = await send(running.transport, messages.create, { ...owner, integration: 'custom', label: 'cut off' });
    const stores = await running.openStores();
    try {
      // What a crash mid-test leaves: `testing`, and no end.
      await handleCommand(stores.events, connectionAggregate, connectionStreamId(created.id), { kind: 'start-test', workspaceId: 'ws', userId: 'alice', staleTestMs: 60_000, at: new Date().toISOString() });
      await expect(send(running.transport, messages.update, { ...owner, connectionId: created.id, label: 'x' })).rejects.toMatchObject({ code: 'conflict' });
      const worker = (at: number) => interruptedTests({ events: stores.events, documents: stores.documents, clock: { now: () => new Date(at) }, log: { warn: () => undefined, error: () => undefined }, config: { staleTestMs: 60_000 } });
      for (let i = 0; i < 100 && (await send(running.transport, messages.get, { ...owner, connectionId: created.id })).status !== 'testing'; i++) await new Promise((r) => setTimeout(r, 20));
      expect(await worker(Date.now()).end()).toBe(0);
      expect(await worker(Date.now() + 61_000).end()).toBe(1);
    } finally {
      await stores.close();
    }
    let after = await send(running.transport, messages.get, { ...owner, connectionId: created.id });
    for (let i = 0; i < 100 && after.status === 'testing'; i++) after = (await new Promise((r) => setTimeout(r, 20)), await send(running.transport, messages.get, { ...owner, connectionId: created.id }));
    expect(after).toMatchObject({ status: 'error', status_reason: INTERRUPTED_TEST_REASON });
    expect(await send(running.transport, messages.update, { ...owner, connectionId: created.id, label: 'changed' })).toMatchObject({ label: 'changed' });
  });
});
