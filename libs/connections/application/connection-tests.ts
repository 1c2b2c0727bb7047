import { AppError, type Clock, type EventMetadata, type ReplyIn, type ValidRequestIn } from '@lore/platform/kernel';
import type { EventStore } from '@lore/platform/event-store/port';
import type { DocumentStore } from '@lore/platform/documents/port';
import type { Egress } from '@lore/platform/egress/port';
import { handleCommand, readAggregateState, type ContextLog, type ReadYourWrites } from '@lore/platform/cqrs';
import type { ConnectionMessages, IntegrationRecord, AuthMethod, OAuthApp } from '@lore/connections/contracts';
import { connectionStreamId, ownedConnection, type LiveConnection, type LiveCredential } from '@lore/connections/domain';
import { findIntegration } from './catalog/catalog-entries';
import { connectionAggregate } from './connection.commands';
import { readConnection } from './connection.queries';
import type { CredentialValues, CredentialVault } from './credential-vault';
import { refreshAccessToken } from './verification/oauth-tokens';
import { accessTokenExpired, hasRefreshToken } from './verification/token-expiry';
import { withDefaults } from './verification/templates';
import { operatorClient } from './connect/oauth-apps';
import { runVerification, type VerificationResult } from './verification/verify-connection';

type Owner = { readonly workspaceId: string; readonly userId: string };

/** Who the health check's events name as actor. */
export const HEALTH_CHECK_ACTOR = 'system:health-check';
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
    readonly oauthClients: Readonly<Record<string, OAuthApp>>;
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
  /** The refresh running (or last queued) per credential id. */
  private readonly refreshing = new Map<string, Promise<void>>();

  constructor(private readonly deps: ConnectionTestDeps) {}

  async test(c: ValidRequestIn<ConnectionMessages, 'test'>): Promise<ReplyIn<ConnectionMessages, 'test'>> {
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
    // The reason explains a failure; a passing test's remark (no verification request) is only in the answer.
    const reason = outcome.outcome === 'active' ? null : outcome.reason;
    const finished = await handleCommand(this.deps.events, connectionAggregate, stream, { kind: 'finish-test', workspaceId: c.workspaceId, userId: c.userId, outcome: outcome.outcome, reason, at: testedAt }, { metadata });
    await this.deps.readYourWrites.settle(finished.position);
    const connection = await readConnection(this.deps.documents, c, c.connectionId);
    return {
      connection_id: c.connectionId,
      success: outcome.outcome === 'active',
      status: connection.status,
      message: outcome.reason ?? 'The connection works',
      http_status: outcome.httpStatus,
      latency_ms: outcome.latencyMs,
      token_refreshed: outcome.refreshed,
      tested_at: testedAt,
      connection,
    };
  }

  /**
   * The health check of one connection (README, "Health over time"): the same verification as a
   * test, with the access token refreshed when it expires within `refreshAheadMs`, and the
   * finding recorded without a `testing` step: an event only when the status changes.
   */
  async check(owner: Owner, connectionId: string, refreshAheadMs: number): Promise<void> {
    const metadata: EventMetadata = { actor: HEALTH_CHECK_ACTOR, workspaceId: owner.workspaceId };
    const stream = connectionStreamId(connectionId);
    const connection = ownedConnection(await readAggregateState(this.deps.events, connectionAggregate, stream), owner);
    if (connection.status !== 'active' && connection.status !== 'error') return;
    const outcome = await this.verify(connection, owner, metadata, refreshAheadMs);
    await handleCommand(this.deps.events, connectionAggregate, stream, { kind: 'observe', ...owner, outcome: outcome.outcome, reason: outcome.reason, at: this.now() }, { metadata });
  }

  private async verify(connection: LiveConnection, owner: Owner, metadata: EventMetadata, refreshAheadMs?: number): Promise<Outcome> {
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
      const result = await this.refreshOnce(credential, entry, method, connection, owner, metadata);
      if (!result.ok) return result.invalidGrant ? { ...failed(`the refresh token was refused (${result.error}); reconnect the account`), outcome: 'expired' } : failed(`could not refresh the access token: ${result.error}`);
      values = result.values;
      refreshed = true;
      return null;
    };
    if (userTokens && hasRefreshToken(values) && accessTokenExpired(values, this.deps.clock.now(), refreshAheadMs)) {
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

  /**
   * One refresh at a time per credential in this process. Each refresh first reads the
   * credential again: when another test (here or in another replica) refreshed it since the
   * caller read it, its tokens are used and the provider is not asked again (a reused refresh
   * token may be refused, or revoke the whole grant). A refusal is believed only if nobody
   * refreshed meanwhile.
   */
  private refreshOnce(credential: LiveCredential, entry: IntegrationRecord, method: AuthMethod, connection: LiveConnection, owner: Owner, metadata: EventMetadata): Promise<Refreshed> {
    const previous = this.refreshing.get(credential.credentialId) ?? Promise.resolve();
    const next = previous.then(() => this.refreshAfter(credential, entry, method, connection, owner, metadata));
    const settled = next.then(() => undefined, () => undefined);
    this.refreshing.set(credential.credentialId, settled);
    void settled.then(() => {
      if (this.refreshing.get(credential.credentialId) === settled) this.refreshing.delete(credential.credentialId);
    });
    return next;
  }

  private async refreshAfter(seen: LiveCredential, entry: IntegrationRecord, method: AuthMethod, connection: LiveConnection, owner: Owner, metadata: EventMetadata): Promise<Refreshed> {
    const { credentialId, version: seenVersion } = seen;
    const fresh = await this.deps.vault.open(owner, credentialId);
    if (fresh.credential.version > seenVersion) return { ok: true, values: fresh.values };
    const config = withDefaults(entry.config_schema, { ...connection.config });
    const client = operatorClient(entry, method, config, this.deps.config.oauthClients[entry.id]);
    const got = await refreshAccessToken(method, config, fresh.values, this.deps.egress, this.deps.clock.now(), { timeoutMs: this.deps.config.testTimeoutMs, ...(client === undefined ? {} : { client }) });
    if (!got.ok) {
      const now = await this.deps.vault.open(owner, credentialId);
      if (now.credential.version > seenVersion) return { ok: true, values: now.values };
      return { ok: false, error: got.error, invalidGrant: got.invalidGrant };
    }
    const { access_token, expires_at, refresh_token } = got.token;
    const values: CredentialValues = { ...fresh.values, access_token, ...(refresh_token === undefined ? {} : { refresh_token }) };
    // Without an expiry from the provider, an old past one must not make the new token look expired.
    if (expires_at === null) delete values['expires_at'];
    else values['expires_at'] = expires_at;
    try {
      await this.deps.vault.refresh(fresh.credential, values, method, metadata);
      return { ok: true, values };
    } catch (error) {
      if (!(error instanceof AppError && error.code === 'conflict')) throw error;
      return { ok: true, values: (await this.deps.vault.open(owner, credentialId)).values };
    }
  }

  private now(): string {
    return this.deps.clock.now().toISOString();
  }
}

function failed(reason: string): Outcome {
  return { outcome: 'error', reason, httpStatus: null, latencyMs: 0, refreshed: false };
}
