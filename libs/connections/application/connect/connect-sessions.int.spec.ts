import { join } from 'node:path';
import { sealedKeyId } from '@lore/platform/crypto';
import { openSqliteDocumentStore } from '@lore/platform/documents/sqlite';
import { readAggregateState } from '@lore/platform/cqrs';
import { send } from '@lore/platform/transport/port';
import { startContext, until, type RunningContext } from '@lore/platform/testing';
import { systemClock, type Clock } from '@lore/platform/kernel';
import { connectMessages, connectionsConfig } from '@lore/connections/contracts';
import { connectSessionDecider, connectSessionStreamId, upcastConnectSessionEvent } from '@lore/connections/domain';
import { connectionsContext } from '../connections.context';
import { ConnectSessions } from './connect-sessions';

const owner = { workspaceId: 'ws', userId: 'alice', actor: 'user:alice' };
type Stores = Awaited<ReturnType<RunningContext['openStores']>>;
const messages = connectMessages({ maxConfigBytes: 16384, maxCredentialsBytes: 16384 });
const env = {
  LORE_PUBLIC_BASE_URL: 'https://lore.example',
  CONNECT_REDIRECT_URLS: 'https://app.example/connected',
  // Never contacted: every outcome here is decided before the token endpoint.
  CONNECTION_OAUTH_CLIENTS: JSON.stringify({
    gitlab: { client_id: 'app', client_secret: 'app-secret-DO-NOT-LEAK', config: { base_url: 'https://gitlab.internal.example' } },
    // Registered without the subdomain it belongs to: no configuration can be trusted with its secret.
    zendesk: { client_id: 'zd', client_secret: 'zd-secret' },
  }),
};

/** What the e2e suites cannot reach from outside: a verifier gone (its key shredded), and the session's events holding nothing in the clear. */
describe('connect sessions in the connections service', () => {
  let running: RunningContext;
  beforeAll(async () => {
    running = await startContext(connectionsContext, env);
  });
  afterAll(() => running.stop());

  const start = async () => {
    const session = await send(running.transport, messages.create, { ...owner, integration: 'gitlab', redirectUrl: 'https://app.example/connected' });
    const token = new URL(session.connect_url ?? '').searchParams.get('token') ?? '';
    const { location } = await send(running.transport, messages.authorize, { sessionId: session.id, token });
    const authorize = new URL(location);
    return { session, token, authorize, state: authorize.searchParams.get('state') ?? '' };
  };

  /** The service's own class over these stores: their keyring shreds what it holds (the running service caches its keys). */
  const overStores = (stores: Stores, clock: Clock = systemClock): ConnectSessions => {
    const unused = undefined as never;
    return new ConnectSessions({
      events: stores.events,
      documents: stores.documents,
      keyring: stores.keyring,
      egress: unused,
      clock,
      log: { warn: () => undefined, error: () => undefined },
      commands: unused,
      tests: unused,
      config: { ...connectionsConfig.parse(env), testTimeoutMs: 1_000 },
    });
  };

  it('ends an abandoned session once past its time, and shreds its verifier', async () => {
    const { session } = await start();
    const stores = await running.openStores();
    try {
      const sessions = overStores(stores, { now: () => new Date(Date.parse(session.expires_at) + 120_000) });
      await until(() => stores.documents.collection('connect_sessions').get(session.id), (doc) => doc?.['status'] === 'authorizing', 5_000);
      const stored = await readAggregateState(stores.events, { name: 'connect-session', decider: connectSessionDecider, upcast: upcastConnectSessionEvent }, connectSessionStreamId(session.id));
      if (stored.status === 'absent' || stored.sealedVerifier === null) throw new Error('no sealed verifier');
      expect(await sessions.endAbandoned(60_000)).toBeGreaterThanOrEqual(1);
      expect(await stores.keyring.get(sealedKeyId(stored.sealedVerifier))).toBeNull();
      expect(await sessions.endAbandoned(60_000)).toBe(0);
    } finally {
      await stores.close();
    }
    expect(await send(running.transport, messages.get, { ...owner, sessionId: session.id })).toMatchObject({ status: 'failed', error: { code: 'session_expired' } });
  });

  it('gives the data key back, shredding nothing, for a visit that stored no verifier: the session expired, or another visit took it', async () => {
    const created = () => send(running.transport, messages.create, { ...owner, integration: 'gitlab', redirectUrl: 'https://app.example/connected' });
    const tokenOf = (session: { connect_url: string | null }) => new URL(session.connect_url ?? '').searchParams.get('token') ?? '';
    const [late, raced] = [await created(), await created()];
    const stores = await running.openStores();
    // The keyring's file, read beside it: how many data keys are stored.
    const keyring = openSqliteDocumentStore({ path: join(running.dataDir, 'connections', 'keyring.db'), durability: 'full' });
    try {
      // A pool filled and taken from once: the visits' takes leave it above its refill mark, so only shredding moves the count.
      stores.keyring.putBack(await stores.keyring.create());
      const keys = () => keyring.collection('data_keys').count();
      const before = await keys();

      const expired = await overStores(stores, { now: () => new Date(Date.parse(late.expires_at) + 1_000) }).authorize({ sessionId: late.id, token: tokenOf(late) });
      expect(Object.fromEntries(new URL(expired.location).searchParams)).toMatchObject({ status: 'error', error: 'session_expired' });
      expect(await keys()).toBe(before);

      const sessions = overStores(stores);
      const visits = await Promise.all([0, 1].map(() => sessions.authorize({ sessionId: raced.id, token: tokenOf(raced) })));
      expect(visits.map((v) => new URL(v.location).searchParams.get('error')).sort()).toEqual([null, 'session_already_used']);
      expect(await keys()).toBe(before);
    } finally {
      await keyring.close();
      await stores.close();
    }
  });

  it('ends a callback whose PKCE verifier is gone as missing_verifier, with no exchange', async () => {
    const { session, state } = await start();
    const stores = await running.openStores();
    try {
      const sessions = overStores(stores);
      const stored = await readAggregateState(stores.events, { name: 'connect-session', decider: connectSessionDecider, upcast: upcastConnectSessionEvent }, connectSessionStreamId(session.id));
      if (stored.status === 'absent' || stored.sealedVerifier === null) throw new Error('no sealed verifier');
      await stores.keyring.shred([sealedKeyId(stored.sealedVerifier)]);
      const { location } = await sessions.callback({ state, code: 'code-1' });
      expect(Object.fromEntries(new URL(location).searchParams)).toMatchObject({ status: 'error', error: 'missing_verifier', session_id: session.id });
    } finally {
      await stores.close();
    }
    expect(await send(running.transport, messages.get, { ...owner, sessionId: session.id })).toMatchObject({ status: 'failed', error: { code: 'missing_verifier' } });
  });

  it('refuses, before the user is sent anywhere, a configuration that would move the token endpoint away from the OAuth app', async () => {
    await expect(send(running.transport, messages.create, { ...owner, integration: 'slack', redirectUrl: 'https://app.example/connected' })).rejects.toMatchObject({ code: 'failed_checks', checks: [expect.stringMatching(/^integration: no OAuth app/)] });
    await expect(send(running.transport, messages.create, { ...owner, integration: 'zendesk', config: { subdomain: 'attacker' }, redirectUrl: 'https://app.example/connected' })).rejects.toMatchObject({
      code: 'failed_checks',
      checks: [expect.stringMatching(/^config: Lore's OAuth app for "zendesk" is registered for another token endpoint/)],
    });
    await expect(send(running.transport, messages.create, { ...owner, integration: 'gitlab', redirectUrl: 'https://app.example.evil.test/connected', authMethodId: 'personal_access_token' })).rejects.toMatchObject({
      code: 'failed_checks',
      checks: expect.arrayContaining([expect.stringMatching(/^redirect_url:/), expect.stringMatching(/^auth_method_id: .* not an OAuth 2.0 authorization code method/)]),
    });
  });

  it('keeps no link token, state secret, verifier or code in the clear in its events, and uses the app registered config', async () => {
    const { session, token, authorize, state } = await start();
    expect(`${authorize.origin}${authorize.pathname}`).toBe('https://gitlab.internal.example/oauth/authorize');
    await send(running.transport, messages.callback, { state, error: 'access_denied' });
    const stores = await running.openStores();
    try {
      const events = JSON.stringify((await stores.events.readStream(connectSessionStreamId(session.id))).map((e) => ({ type: e.type, data: e.data })));
      for (const secret of [token, state.split('.')[1] ?? 'none', 'app-secret-DO-NOT-LEAK']) expect(events).not.toContain(secret);
      expect(events).toContain('connections.ConnectSessionFailed');
    } finally {
      await stores.close();
    }
  });
});
