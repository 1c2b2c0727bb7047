import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { AppError, failedChecks, newId, notFound, unavailable, type Clock, type EventMetadata, type ReplyIn, type ValidRequestIn } from '@lore/platform/kernel';
import type { EventStore } from '@lore/platform/event-store/port';
import type { Egress } from '@lore/platform/egress/port';
import type { DocumentStore } from '@lore/platform/documents/port';
import { SealedFields, sealedKeyId, type DataKey, type Keyring } from '@lore/platform/crypto';
import { handleCommand, readAggregateState, type ContextLog } from '@lore/platform/cqrs';
import type { AuthMethod, ConnectMessages, ConnectSettings, IntegrationRecord, OAuthApp } from '@lore/connections/contracts';
import {
  connectSessionDecider,
  connectSessionStreamId,
  connectionStreamId,
  ended,
  ownedConnection,
  upcastConnectSessionEvent,
  type ConnectError,
  type ConnectSessionState,
  type LiveConnectSession,
} from '@lore/connections/domain';
import { entryOf, VALIDATION_FAILED } from '../connection-checks';
import { connectionAggregate, type ConnectionCommands } from '../connection.commands';
import type { ConnectionTests } from '../connection-tests';
import { validateConnection } from '../validation/connection-validator';
import { exchangeAuthorizationCode } from '../verification/oauth-tokens';
import { fillTemplate, withDefaults } from '../verification/templates';
import { operatorClient } from './oauth-apps';
import { allowedRedirect } from './redirect-urls';
import { toSessionRecord } from './connect-session.record';
import { CONNECT_SESSIONS, type ConnectSessionDoc } from './connect-sessions.projection';

const sessionAggregate = { name: 'connect-session', decider: connectSessionDecider, upcast: upcastConnectSessionEvent };

export const CALLBACK_PATH = '/api/v1/connect/callback';
export const authorizePath = (sessionId: string): string => `/api/v1/connect/sessions/${encodeURIComponent(sessionId)}/authorize`;

export interface ConnectSessionDeps {
  readonly events: EventStore;
  readonly documents: DocumentStore;
  readonly keyring: Keyring;
  readonly egress: Egress;
  readonly clock: Clock;
  readonly log: ContextLog;
  readonly commands: ConnectionCommands;
  readonly tests: ConnectionTests;
  readonly config: {
    readonly connect: ConnectSettings;
    readonly oauthClients: Readonly<Record<string, OAuthApp>>;
    readonly testTimeoutMs: number;
  };
}

/** 256 random bits, URL-safe: the link token, the `state` secret and the PKCE verifier (RFC 7636 §4.1: 43 characters). */
const randomSecret = (): string => randomBytes(32).toString('base64url');
const sha256 = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();
const hashOf = (secret: string): string => sha256(secret).toString('hex');
/** Constant-time: how many characters of a guess are right is never measurable. */
const sameHash = (secret: string, storedHex: string): boolean => {
  const stored = Buffer.from(storedHex, 'hex');
  const given = sha256(secret);
  return stored.length === given.length && timingSafeEqual(stored, given);
};

/** The method a session runs: the authorization code grant with endpoints the catalog names. */
function connectMethod(entry: IntegrationRecord, authMethodId: string | undefined): { method: AuthMethod } | { error: string } {
  const candidates = entry.auth_methods.filter((m) => m.type === 'oauth2' && m.oauth2?.grant_type === 'authorization_code');
  const method = authMethodId === undefined ? (candidates.find((m) => m.id === entry.default_auth_method_id) ?? candidates[0]) : entry.auth_methods.find((m) => m.id === authMethodId);
  if (method === undefined) {
    return { error: authMethodId === undefined ? `integration: "${entry.id}" has no OAuth 2.0 authorization code method to connect with` : `auth_method_id: unknown method "${authMethodId}" for integration ${entry.id}` };
  }
  if (!candidates.includes(method)) return { error: `auth_method_id: "${method.id}" is not an OAuth 2.0 authorization code method; connect sessions run that flow only` };
  if (method.oauth2?.authorization_url === undefined || method.oauth2.token_url === undefined) {
    return { error: `auth_method_id: "${method.id}" discovers its endpoints and registers its client dynamically (RFC 7591); connect sessions need the catalog's endpoints` };
  }
  return { method };
}

/** What a connect outcome adds to the application's redirect URL. */
function outcomeUrl(redirectUrl: string, sessionId: string, outcome: { status: 'success' | 'error'; connectionId?: string | null; error?: string }): string {
  const url = new URL(redirectUrl);
  url.searchParams.set('status', outcome.status);
  url.searchParams.set('session_id', sessionId);
  if (outcome.connectionId) url.searchParams.set('connection_id', outcome.connectionId);
  if (outcome.error) url.searchParams.set('error', outcome.error);
  return url.toString();
}

/**
 * Connect sessions (README, "Connect sessions (OAuth)"): the application asks for a one-time
 * URL; the user's browser visits it and is sent to the provider with `state` and a PKCE S256
 * challenge; the provider sends it back to the callback, which exchanges the code with Lore's
 * OAuth app, stores the tokens sealed, creates (or reconnects) the connection, tests it and
 * sends the browser back to the application with the outcome.
 */
export class ConnectSessions {
  private readonly verifiers: SealedFields<string>;

  constructor(private readonly deps: ConnectSessionDeps) {
    this.verifiers = new SealedFields<string>(deps.keyring, 'Connect session verifier');
  }

  async create(c: ValidRequestIn<ConnectMessages, 'create'>): Promise<ReplyIn<ConnectMessages, 'create'>> {
    const settings = this.deps.config.connect;
    if (settings.publicBaseUrl === null) throw unavailable('Connect sessions need LORE_PUBLIC_BASE_URL: the address the browser and the provider reach Lore at');
    const entry = entryOf(c.integration);
    const errors: string[] = [];
    const chosen = connectMethod(entry, c.authMethodId);
    if ('error' in chosen) errors.push(chosen.error);
    const app = this.deps.config.oauthClients[entry.id];
    if (app === undefined) errors.push(`integration: no OAuth app is configured for "${entry.id}" (CONNECTION_OAUTH_CLIENTS)`);
    if (!allowedRedirect(c.redirectUrl, settings.redirectUrls)) errors.push('redirect_url: not a redirect URL this Lore allows (CONNECT_REDIRECT_URLS)');
    // The app's registered configuration wins: its secret goes only where it is registered.
    const config = { ...(c.config ?? {}), ...(app?.config ?? {}) };
    if ('method' in chosen) {
      const checked = await validateConnection(entry, { auth_method_id: chosen.method.id, config, credential_provided: true }, { now: this.deps.clock.now() });
      errors.push(...checked.errors);
      const authorizationUrl = fillTemplate(chosen.method.oauth2?.authorization_url ?? '', { config: withDefaults(entry.config_schema, config), credentials: {} }, 'url');
      if ('error' in authorizationUrl) errors.push(`config: ${authorizationUrl.error}`);
      else if (app !== undefined && operatorClient(entry, chosen.method, withDefaults(entry.config_schema, config), app) === undefined) {
        errors.push(`config: Lore's OAuth app for "${entry.id}" is registered for another token endpoint than this configuration names`);
      }
    }
    if (c.connectionId !== undefined) {
      const target = await readAggregateState(this.deps.events, connectionAggregate, connectionStreamId(c.connectionId));
      try {
        if (ownedConnection(target, c).integration !== entry.id) errors.push(`connection_id: connection ${c.connectionId} is not a ${entry.id} connection`);
      } catch {
        errors.push(`connection_id: no connection "${c.connectionId}" of yours`);
      }
    }
    if (errors.length > 0 || !('method' in chosen)) throw failedChecks('Connect session refused', [...new Set(errors)]);

    const now = this.deps.clock.now();
    const sessionId = newId('cs', now.getTime());
    const linkToken = randomSecret();
    const ttlMs = Math.min(c.expiresInSeconds === undefined ? settings.defaultTtlMs : c.expiresInSeconds * 1000, settings.maxTtlMs);
    const result = await handleCommand(
      this.deps.events,
      sessionAggregate,
      connectSessionStreamId(sessionId),
      {
        kind: 'create',
        session: {
          sessionId,
          workspaceId: c.workspaceId,
          userId: c.userId,
          createdBy: c.actor,
          integration: entry.id,
          authMethodId: chosen.method.id,
          scopes: c.scopes ?? chosen.method.oauth2?.scopes ?? [],
          redirectUrl: c.redirectUrl,
          config,
          label: c.label ?? entry.name,
          connectionId: c.connectionId ?? null,
          linkTokenHash: hashOf(linkToken),
          expiresAt: new Date(now.getTime() + ttlMs).toISOString(),
        },
        at: now.toISOString(),
      },
      { newStream: true, metadata: metadataOf(c) },
    );
    const connectUrl = `${settings.publicBaseUrl}${authorizePath(sessionId)}?token=${linkToken}`;
    return toSessionRecord(this.live(result.state), now, connectUrl);
  }

  async get(q: ValidRequestIn<ConnectMessages, 'get'>): Promise<ReplyIn<ConnectMessages, 'get'>> {
    const session = await this.read(q.sessionId);
    if (session === null || session.workspaceId !== q.workspaceId || session.userId !== q.userId) throw notFound('Connect session');
    return toSessionRecord(session, this.deps.clock.now(), null);
  }

  /** The one-time URL: to the provider once; a second visit goes back to the application as `session_already_used`. */
  async authorize(c: ValidRequestIn<ConnectMessages, 'authorize'>): Promise<ReplyIn<ConnectMessages, 'authorize'>> {
    const session = await this.read(c.sessionId);
    // Unknown, or not this session's token: the same 404, and no redirect anywhere.
    if (session === null || !sameHash(c.token, session.linkTokenHash)) throw notFound('Connect session');
    if (session.status !== 'created') return { location: outcomeUrl(session.redirectUrl, session.sessionId, { status: 'error', error: 'session_already_used' }) };
    const entry = entryOf(session.integration);
    const method = entry.auth_methods.find((m) => m.id === session.authMethodId);
    const app = this.deps.config.oauthClients[entry.id];
    const oauth2 = method?.oauth2;
    if (method === undefined || oauth2?.authorization_url === undefined || app === undefined) {
      return this.fail(session, 'provider_error', `the integration "${entry.id}" or Lore's OAuth app for it is no longer configured`);
    }
    const stateSecret = randomSecret();
    const pkce = oauth2['pkce'] === true;
    const verifier = pkce ? randomSecret() : null;
    const key = verifier === null ? null : await this.verifiers.newKey();
    const sealedVerifier = verifier === null || key === null ? null : this.verifiers.seal(session.sessionId, verifier, key);
    let result;
    try {
      result = await this.step(session, { kind: 'authorize', stateHash: hashOf(stateSecret), sealedVerifier, at: this.now() });
    } catch (error) {
      if (error instanceof AppError && error.code === 'conflict') {
        // Visited twice at once: the other visit goes on; this one's verifier was never sent, and
        // a conflict is a refusal before or instead of the append, so nothing sealed with the key is stored.
        this.giveBack(key);
        return { location: outcomeUrl(session.redirectUrl, session.sessionId, { status: 'error', error: 'session_already_used' }) };
      }
      // Anything else may have come after the append: the key goes with what it may have sealed.
      await this.shred(sealedVerifier);
      throw error;
    }
    const after = this.live(result.state);
    if (after.status === 'failed') {
      // Expired: the session ended without the verifier in any event, so nothing sealed with the key is stored.
      if (after.sealedVerifier === sealedVerifier) await this.shred(sealedVerifier);
      else this.giveBack(key);
      return { location: outcomeUrl(after.redirectUrl, after.sessionId, { status: 'error', error: after.error?.code ?? 'session_expired' }) };
    }
    const filled = fillTemplate(oauth2.authorization_url, { config: withDefaults(entry.config_schema, session.config), credentials: {} }, 'url');
    if ('error' in filled) return this.fail(after, 'provider_error', filled.error);
    const url = new URL(filled.text);
    const params = url.searchParams;
    for (const [name, value] of Object.entries(oauth2['authorization_params'] ?? {})) params.set(name, String(value));
    params.set('response_type', 'code');
    params.set('client_id', app.client_id);
    params.set('redirect_uri', this.callbackUrl());
    if (session.scopes.length > 0) params.set(typeof oauth2['scope_param'] === 'string' ? oauth2['scope_param'] : 'scope', session.scopes.join(oauth2['scope_separator'] === ',' ? ',' : ' '));
    params.set('state', `${session.sessionId}.${stateSecret}`);
    if (verifier !== null) {
      params.set('code_challenge', sha256(verifier).toString('base64url'));
      params.set('code_challenge_method', 'S256');
    }
    return { location: url.toString() };
  }

  /**
   * The provider's redirect (RFC 6749 §4.1.2, errors §4.1.2.1). A `state` naming no session
   * gets a 400 and no redirect (there is nowhere safe to send the browser); every other
   * outcome goes back to the session's allowed redirect URL.
   */
  async callback(c: ValidRequestIn<ConnectMessages, 'callback'>): Promise<ReplyIn<ConnectMessages, 'callback'>> {
    const [sessionId, stateSecret] = (c.state ?? '').split('.', 2);
    const session = sessionId && stateSecret ? await this.read(sessionId) : null;
    if (session === null || stateSecret === undefined) throw failedChecks('Connect callback refused', ['state: does not name a connect session']);
    if (ended(session) || session.status === 'exchanging') return { location: outcomeUrl(session.redirectUrl, session.sessionId, { status: 'error', error: 'session_already_used' }) };
    if (session.stateHash === null || !sameHash(stateSecret, session.stateHash)) return this.fail(session, 'state_mismatch', 'the callback\'s state does not match the one this session sent to the provider');
    if (c.error !== undefined) {
      const declined = c.error === 'access_denied';
      const said = `${c.error}${c.errorDescription ? `: ${c.errorDescription}` : ''}`.replace(/[\u0000-\u001f\u007f]+/g, ' ').slice(0, 300);
      return this.fail(session, declined ? 'access_denied' : 'provider_error', declined ? `the user declined the authorization (${said})` : `the provider answered with an error (${said})`);
    }
    if (c.code === undefined || c.code === '') return this.fail(session, 'missing_code', 'the provider sent the user back without an authorization code');
    // Taken once: a replayed or concurrent callback finds it taken.
    let claimed;
    try {
      claimed = this.live((await this.step(session, { kind: 'exchange', at: this.now() })).state);
    } catch (error) {
      if (error instanceof AppError && error.code === 'conflict') return { location: outcomeUrl(session.redirectUrl, session.sessionId, { status: 'error', error: 'session_already_used' }) };
      throw error;
    }
    if (claimed.status === 'failed') {
      await this.shred(claimed.sealedVerifier);
      return { location: outcomeUrl(claimed.redirectUrl, claimed.sessionId, { status: 'error', error: claimed.error?.code ?? 'session_expired' }) };
    }
    try {
      return await this.finish(claimed, c.code);
    } catch (error) {
      this.deps.log.error({ sessionId: claimed.sessionId, err: error instanceof AppError ? error.code : error instanceof Error ? error.name : 'error' }, 'connect session failed unexpectedly');
      return this.fail(claimed, 'connection_failed', 'the connection could not be made (internal error); try again');
    }
  }

  private async finish(session: LiveConnectSession, code: string): Promise<{ location: string }> {
    const entry = entryOf(session.integration);
    const method = entry.auth_methods.find((m) => m.id === session.authMethodId);
    if (method === undefined) return this.fail(session, 'connection_failed', `the method "${session.authMethodId}" is no longer in the catalog`);
    let verifier: string | null = null;
    if (session.sealedVerifier !== null) {
      try {
        verifier = await this.verifiers.open(session.sessionId, session.sealedVerifier);
      } catch {
        return this.fail(session, 'missing_verifier', 'the PKCE verifier of this session is gone; start a new connect session');
      }
    }
    const config = withDefaults(entry.config_schema, session.config);
    const client = operatorClient(entry, method, config, this.deps.config.oauthClients[entry.id]);
    if (client === undefined) return this.fail(session, 'token_exchange_failed', `Lore's OAuth app for "${entry.id}" is not registered for this token endpoint`);
    const shape = method.oauth2?.['token_response'] as Record<string, string> | undefined;
    const got = await exchangeAuthorizationCode(method, config, { code, redirectUri: this.callbackUrl(), codeVerifier: verifier }, this.deps.egress, this.deps.clock.now(), {
      client,
      timeoutMs: this.deps.config.testTimeoutMs,
      ...(shape === undefined ? {} : { shape }),
    });
    if (!got.ok) return this.fail(session, 'token_exchange_failed', `the code could not be exchanged: ${got.error}`);
    const { access_token, refresh_token, expires_at } = got.token;
    // The provider's token_type label was checked against the catalog (`token_response`); the
    // stored `token_type` says how Lore presents the token, the method's default (Bearer).
    const credentials = withDefaults(method.fields, { access_token, ...(refresh_token === undefined ? {} : { refresh_token }), ...(expires_at === null ? {} : { expires_at }) });
    const owner = { workspaceId: session.workspaceId, userId: session.userId, actor: session.createdBy };
    let connectionId: string;
    try {
      const connection =
        session.connectionId === null
          ? await this.deps.commands.create({ ...owner, integration: entry.id, label: session.label, config: session.config, credentials, authMethodId: method.id })
          : await this.deps.commands.update({ ...owner, connectionId: session.connectionId, credentials, authMethodId: method.id });
      connectionId = connection.id;
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      const checks = error.checks.length > 0 ? `: ${error.checks.join('; ')}` : '';
      return this.fail(session, 'connection_failed', `${error.code === 'failed_checks' ? VALIDATION_FAILED : error.message}${checks}`.slice(0, 1000));
    }
    const tested = await this.deps.tests.test({ ...owner, connectionId });
    await this.step(session, { kind: 'complete', connectionId, connectionStatus: tested.status, testPassed: tested.success, at: this.now() });
    await this.shred(session.sealedVerifier);
    return { location: outcomeUrl(session.redirectUrl, session.sessionId, tested.success ? { status: 'success', connectionId } : { status: 'error', connectionId, error: 'connection_test_failed' }) };
  }

  /**
   * Ends what was abandoned: a session past `expires_at` by more than `graceMs` that never came
   * back (`session_expired`), or whose callback was cut off by a crash (`connection_failed`).
   * Its sealed verifier's key is shredded. Answers how many were ended.
   */
  async endAbandoned(graceMs: number): Promise<number> {
    const before = new Date(this.deps.clock.now().getTime() - graceMs).toISOString();
    const { items } = await this.deps.documents
      .collection<ConnectSessionDoc>(CONNECT_SESSIONS)
      .find({ filter: { status: { $in: ['created', 'authorizing', 'exchanging'] }, expires_at: { $lt: before } }, limit: 500 });
    let endedNow = 0;
    for (const doc of items) {
      const session = await this.read(doc.id);
      if (session === null || ended(session)) continue;
      const interrupted = session.status === 'exchanging';
      await this.fail(session, interrupted ? 'connection_failed' : 'session_expired', interrupted ? 'the callback was interrupted (the service stopped while it ran); start a new connect session' : 'the connect session expired before the user came back');
      endedNow++;
    }
    return endedNow;
  }

  /** Ends the session as failed (once) and sends the browser back with the code. */
  private async fail(session: LiveConnectSession, error: ConnectError, message: string): Promise<{ location: string }> {
    await this.step(session, { kind: 'fail', error, message, at: this.now() });
    await this.shred(session.sealedVerifier);
    return { location: outcomeUrl(session.redirectUrl, session.sessionId, { status: 'error', error }) };
  }

  /** The verifier served its one use (or can no longer be used): its key goes. */
  private async shred(sealedVerifier: string | null): Promise<void> {
    if (sealedVerifier !== null) await this.deps.keyring.shred([sealedKeyId(sealedVerifier)]);
  }

  /**
   * A pooled key that sealed nothing stored goes back to the pool (Keyring.putBack): shredding
   * it cost a durable deletion and a purge for each refused visit.
   */
  private giveBack(key: DataKey | null): void {
    if (key !== null) this.deps.keyring.putBack(key);
  }

  private step(session: LiveConnectSession, command: Parameters<typeof connectSessionDecider.decide>[0]) {
    return handleCommand(this.deps.events, sessionAggregate, connectSessionStreamId(session.sessionId), command, {
      metadata: { actor: session.createdBy, workspaceId: session.workspaceId } satisfies EventMetadata,
    });
  }

  private async read(sessionId: string): Promise<LiveConnectSession | null> {
    if (!/^cs_[0-9a-z]{26}$/.test(sessionId)) return null;
    const state = await readAggregateState(this.deps.events, sessionAggregate, connectSessionStreamId(sessionId));
    return state.status === 'absent' ? null : state;
  }

  private live(state: ConnectSessionState): LiveConnectSession {
    if (state.status === 'absent') throw notFound('Connect session');
    return state;
  }

  private callbackUrl(): string {
    return `${this.deps.config.connect.publicBaseUrl ?? ''}${CALLBACK_PATH}`;
  }

  private now(): string {
    return this.deps.clock.now().toISOString();
  }
}

function metadataOf(c: { actor: string; workspaceId: string }): EventMetadata {
  return { actor: c.actor, workspaceId: c.workspaceId };
}
