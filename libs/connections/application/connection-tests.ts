import { AppError, type Clock, type EventMetadata, type ReplyOf, type ValidRequestOf } from '@lore/platform/kernel';
import type { EventStore } from '@lore/platform/event-store/port';
import type { DocumentStore } from '@lore/platform/documents/port';
import type { Egress } from '@lore/platform/egress/port';
import { handleCommand, type ContextLog, type ReadYourWrites } from '@lore/platform/cqrs';
import type { ConnectionMessages, IntegrationRecord } from '@lore/connections/contracts';
import { connectionStreamId, ownedConnection, type LiveConnection, type LiveCredential } from '@lore/connections/domain';
import { findIntegration } from './catalog/catalog-entries';
import { connectionAggregate } from './connection.commands';
import { readConnection } from './connection.queries';
import type { CredentialValues, CredentialVault } from './credential-vault';
import { refreshAccessToken } from './verification/oauth-tokens';
import { accessTokenExpired, hasRefreshToken } from './verification/token-expiry';
import { runVerification, type VerificationResult } from './verification/verify-connection';

type AuthMethod = IntegrationRecord['auth_methods'][number];
type Request<K extends keyof ConnectionMessages> = ValidRequestOf<ConnectionMessages[K]>;
type Reply<K extends keyof ConnectionMessages> = ReplyOf<ConnectionMessages[K]>;
type Refreshed = { readonly ok: true; readonly values: CredentialValues } | { readonly ok: false; readonly error: string; readonly invalidGrant: boolean };
type Outcome = Pick<VerificationResult, 'outcome' | 'reason' | 'httpStatus' | 'latencyMs'> & { readonly refreshed: boolean };

export interface ConnectionTestDeps {
  readonly events: EventStore;
  readonly documents: DocumentStore;
  readonly vault: CredentialVault;
  readonly egress: Egress;
  readonly readYourWrites: ReadYourWrites;
  readonly clock: Clock;
  readonly log: ContextLog;
  readonly config: {
    readonly testTimeoutMs: number;
    readonly staleTestMs: number;
    /** Lore's registered OAuth app per integration (CONNECTION_OAUTH_CLIENTS): a refresh sends its client id. */
    readonly oauthClients: Readonly<Record<string, { readonly client_id: string; readonly client_secret?: string | undefined }>>;
  };
}

/**
 * `POST /connections/{id}/test`: `testing`, the entry's verification request through the
 * egress port, then `active`, `error` (with the reason) or `expired`. A user's OAuth2 access
 * token that has expired (or is refused with 401) is refreshed once when a refresh token is
 * stored; refreshes are single-flight per credential version, so concurrent tests of
 * connections sharing a credential refresh it once.
 */
export class ConnectionTests {
  private readonly refreshing = new Map<string, Promise<Refreshed>>();

  constructor(private readonly deps: ConnectionTestDeps) {}

  async test(c: Request<'test'>): Promise<Reply<'test'>> {
    const metadata: EventMetadata = { actor: c.actor, workspaceId: c.workspaceId };
    const stream = connectionStreamId(c.connectionId);
    const started = await handleCommand(this.deps.events, connectionAggregate, stream, { kind: 'start-test', workspaceId: c.workspaceId, userId: c.userId, staleTestMs: this.deps.config.staleTestMs, at: this.now() }, { metadata });
    let outcome: Outcome;
    try {
      outcome = await this.verify(ownedConnection(started.state, c), c, metadata);
    } catch (error) {
      // The test must end: an unexpected failure is the connection's error, and logged (never with values).
      this.deps.log.error({ connectionId: c.connectionId, err: error instanceof AppError ? error.code : error instanceof Error ? error.name : 'error' }, 'connection test failed unexpectedly');
      outcome = { outcome: 'error', reason: 'the test could not be run (internal error)', httpStatus: null, latencyMs: 0, refreshed: false };
    }
    const testedAt = this.now();
    const finished = await handleCommand(this.deps.events, connectionAggregate, stream, { kind: 'finish-test', workspaceId: c.workspaceId, userId: c.userId, outcome: outcome.outcome, reason: outcome.reason, at: testedAt }, { metadata });
    await this.deps.readYourWrites.settle(finished.position);
    return {
      connection_id: c.connectionId,
      success: outcome.outcome === 'active',
      status: outcome.outcome,
      message: outcome.reason ?? 'The connection works',
      http_status: outcome.httpStatus,
      latency_ms: outcome.latencyMs,
      token_refreshed: outcome.refreshed,
      tested_at: testedAt,
      connection: await readConnection(this.deps.documents, c, c.connectionId),
    };
  }

  private async verify(connection: LiveConnection, owner: { workspaceId: string; userId: string }, metadata: EventMetadata): Promise<Outcome> {
    const entry = findIntegration(connection.integration);
    const method = entry?.auth_methods.find((m) => m.id === connection.authMethodId);
    if (entry === undefined || method === undefined) return failed(`integration "${connection.integration}" or its method "${connection.authMethodId}" is no longer in the catalog`);
    let credential: LiveCredential | null = null;
    let values: CredentialValues = {};
    if (connection.credentialId !== null) ({ credential, values } = await this.deps.vault.open(owner, connection.credentialId));

    const userTokens = method.type === 'oauth2' && method.oauth2?.grant_type === 'authorization_code';
    let refreshed = false;
    const refresh = async (): Promise<Outcome | null> => {
      if (credential === null) return failed('no credential is stored');
      const result = await this.refreshOnce(credential, values, method, connection, owner, metadata);
      if (!result.ok) return result.invalidGrant ? { ...failed(`the refresh token was refused (${result.error}); reconnect the account`), outcome: 'expired' } : failed(`could not refresh the access token: ${result.error}`);
      values = result.values;
      refreshed = true;
      return null;
    };
    if (userTokens && hasRefreshToken(values) && accessTokenExpired(values, this.deps.clock.now())) {
      const refusal = await refresh();
      if (refusal) return refusal;
    }
    const run = () => runVerification({ entry, method, config: connection.config, credentials: values, egress: this.deps.egress, now: this.deps.clock.now(), timeoutMs: this.deps.config.testTimeoutMs });
    let result = await run();
    // A token refused before its time (revoked, rotated elsewhere): one refresh, one retry.
    if (userTokens && !refreshed && result.httpStatus === 401 && hasRefreshToken(values)) {
      const refusal = await refresh();
      if (refusal) return refusal;
      result = await run();
    }
    return { outcome: result.outcome, reason: result.reason, httpStatus: result.httpStatus, latencyMs: result.latencyMs, refreshed };
  }

  /** One refresh per credential version in this process; a concurrent refresh elsewhere wins the append, and its values are used. */
  private refreshOnce(
    credential: LiveCredential,
    values: CredentialValues,
    method: AuthMethod,
    connection: LiveConnection,
    owner: { workspaceId: string; userId: string },
    metadata: EventMetadata,
  ): Promise<Refreshed> {
    const key = `${credential.credentialId}@${credential.version}`;
    const running = this.refreshing.get(key);
    if (running) return running;
    const refresh = (async (): Promise<Refreshed> => {
      const client = this.deps.config.oauthClients[connection.integration];
      const got = await refreshAccessToken(method, { ...connection.config }, values, this.deps.egress, this.deps.clock.now(), { timeoutMs: this.deps.config.testTimeoutMs, ...(client === undefined ? {} : { client }) });
      if (!got.ok) return { ok: false, error: got.error, invalidGrant: got.invalidGrant };
      const { access_token, expires_at, refresh_token } = got.token;
      const next: CredentialValues = { ...values, access_token, ...(expires_at === null ? {} : { expires_at }), ...(refresh_token === undefined ? {} : { refresh_token }) };
      if (expires_at === null) delete next['expires_at'];
      try {
        await this.deps.vault.refresh(credential, next, method, metadata);
        return { ok: true, values: next };
      } catch (error) {
        if (!(error instanceof AppError && error.code === 'conflict')) throw error;
        return { ok: true, values: (await this.deps.vault.open(owner, credential.credentialId)).values };
      }
    })().finally(() => this.refreshing.delete(key));
    this.refreshing.set(key, refresh);
    return refresh;
  }

  private now(): string {
    return this.deps.clock.now().toISOString();
  }
}

function failed(reason: string): Outcome {
  return { outcome: 'error', reason, httpStatus: null, latencyMs: 0, refreshed: false };
}
