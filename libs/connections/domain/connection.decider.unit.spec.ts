import { deciderSpec } from '@lore/platform/testing';
import { connectionDecider, type ConnectionCommand } from './connection.decider';
import type { ConnectionEvent, ConnectionStatus } from './connection.events';

const owner = { workspaceId: 'ws', userId: 'alice' } as const;
const named = { ...owner, integration: 'slack' } as const;
const T = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
const spec = deciderSpec(connectionDecider);

const created: ConnectionEvent = {
  type: 'connections.ConnectionCreated',
  data: { connectionId: 'con_1', ...owner, createdBy: 'user:alice', integration: 'slack', integrationType: 'connectors', authMethodId: 'bot-token', label: 'Slack', config: {}, credentialId: 'cred_1', createdAt: T(0) },
};
const changed = (from: ConnectionStatus, to: ConnectionStatus, at = T(1), extra: { reason?: string | null; testedAt?: string | null } = {}): ConnectionEvent => ({
  type: 'connections.ConnectionStatusChanged',
  data: { connectionId: 'con_1', ...named, from, to, reason: extra.reason ?? null, testedAt: extra.testedAt ?? null, changedAt: at },
});
/** A created connection brought to each status through events. */
const inStatus: Record<ConnectionStatus, ConnectionEvent[]> = {
  active: [created],
  inactive: [created, changed('active', 'inactive')],
  testing: [created, changed('active', 'testing')],
  error: [created, changed('active', 'testing'), changed('testing', 'error', T(2), { reason: 'HTTP 401', testedAt: T(2) })],
  expired: [created, changed('active', 'testing'), changed('testing', 'expired', T(2), { reason: 'token expired', testedAt: T(2) })],
};
const command = (c: Record<string, unknown>): ConnectionCommand => ({ ...owner, at: T(5), ...c }) as ConnectionCommand;

describe('connectionDecider: the lifecycle', () => {
  it.each([
    ['active', 'inactive'],
    ['inactive', 'active'],
    ['error', 'inactive'],
    ['expired', 'inactive'],
  ] as const)('lets the owner move %s → %s', (from, to) => {
    spec.given(inStatus[from]).when(command({ kind: 'update', status: to })).then([changed(from, to, T(5))]);
  });

  it.each([['error'], ['expired'], ['testing']] as const)('refuses to declare a %s connection active by hand (409)', (from) => {
    spec.given(inStatus[from]).when(command({ kind: 'update', status: 'active' })).thenThrows('conflict');
  });

  it.each([['active'], ['inactive'], ['error'], ['expired']] as const)('starts a test from %s', (from) => {
    spec.given(inStatus[from]).when(command({ kind: 'start-test', staleTestMs: 60_000 })).then([changed(from, 'testing', T(5))]);
  });

  it('keeps a disabled connection disabled when its test passes, and reports a failure', () => {
    const testingFromInactive = [...inStatus.inactive, changed('inactive', 'testing', T(2))];
    spec.given(testingFromInactive).when(command({ kind: 'finish-test', outcome: 'active', reason: null })).then([changed('testing', 'inactive', T(5), { testedAt: T(5) })]);
    spec.given(testingFromInactive).when(command({ kind: 'finish-test', outcome: 'error', reason: 'HTTP 401' })).then([changed('testing', 'error', T(5), { reason: 'HTTP 401', testedAt: T(5) })]);
  });

  it('refuses a second test while one runs, unless that one is stale (a crash cut it off)', () => {
    spec.given(inStatus.testing).when(command({ kind: 'start-test', staleTestMs: 60_000 })).thenThrows('conflict');
    spec.given(inStatus.testing).when(command({ kind: 'start-test', staleTestMs: 1_000 })).then([changed('testing', 'testing', T(5))]);
  });

  it.each([['active'], ['error'], ['expired']] as const)('ends a test in %s with the reason and the time', (outcome) => {
    const reason = outcome === 'active' ? null : 'why';
    spec.given(inStatus.testing).when(command({ kind: 'finish-test', outcome, reason })).then([changed('testing', outcome, T(5), { reason, testedAt: T(5) })]);
    spec.given(inStatus.active).when(command({ kind: 'finish-test', outcome, reason })).thenThrows('conflict');
  });

  it('makes an error or expired connection active again with new credentials, and leaves an inactive one inactive', () => {
    const rotated: ConnectionEvent = {
      type: 'connections.ConnectionUpdated',
      data: { connectionId: 'con_1', ...named, credentialId: 'cred_2', previousCredentialId: 'cred_1', authMethodId: 'bot-token', updatedAt: T(5) },
    };
    const rotate = command({ kind: 'update', credential: { credentialId: 'cred_2', authMethodId: 'bot-token' } });
    spec.given(inStatus.expired).when(rotate).then([rotated, changed('expired', 'active', T(5))]);
    spec.given(inStatus.error).when(rotate).then([rotated, changed('error', 'active', T(5))]);
    spec.given(inStatus.inactive).when(rotate).then([rotated]);
    spec.given(inStatus.testing).when(rotate).thenThrows('conflict');
  });

  it('decides a whole PATCH at once: refused as a whole when its status change is not allowed', () => {
    spec.given(inStatus.error).when(command({ kind: 'update', label: 'New', status: 'active' })).thenThrows('conflict');
    const rotated: ConnectionEvent = {
      type: 'connections.ConnectionUpdated',
      data: { connectionId: 'con_1', ...named, credentialId: 'cred_2', previousCredentialId: 'cred_1', authMethodId: 'bot-token', updatedAt: T(5) },
    };
    spec.given(inStatus.error).when(command({ kind: 'update', credential: { credentialId: 'cred_2', authMethodId: 'bot-token' }, status: 'inactive' })).then([rotated, changed('error', 'inactive', T(5))]);
  });

  it('changes label and config without touching the status, and nothing for an empty update', () => {
    const updated: ConnectionEvent = { type: 'connections.ConnectionUpdated', data: { connectionId: 'con_1', ...named, label: 'New', config: { a: 1 }, updatedAt: T(5) } };
    spec.given(inStatus.error).when(command({ kind: 'update', label: 'New', config: { a: 1 } })).then([updated]);
    spec.given(inStatus.active).when(command({ kind: 'update' })).thenNothingHappened();
  });

  it('is not found for another user or workspace, and deleted once', () => {
    spec.given(inStatus.active).when(command({ kind: 'update', status: 'inactive', userId: 'bob' })).thenThrows('not_found');
    spec.given(inStatus.active).when(command({ kind: 'update', label: 'x', workspaceId: 'ws2' })).thenThrows('not_found');
    const deleted: ConnectionEvent = { type: 'connections.ConnectionDeleted', data: { connectionId: 'con_1', ...named, credentialId: 'cred_1', deletedAt: T(5) } };
    spec.given(inStatus.testing).when(command({ kind: 'delete' })).then([deleted]);
    spec.given([...inStatus.active, deleted]).when(command({ kind: 'delete' })).thenNothingHappened();
    spec.given([...inStatus.active, deleted]).when(command({ kind: 'update', label: 'x' })).thenThrows('not_found');
  });
});

describe('connectionDecider: the health check', () => {
  const observe = (outcome: 'active' | 'error' | 'expired', reason: string | null = null) => command({ kind: 'observe', outcome, reason });
  it('says only what changed: a failure, an expiry, a recovery, with the reason', () => {
    spec.given(inStatus.active).when(observe('error', 'HTTP 500')).then([changed('active', 'error', T(5), { reason: 'HTTP 500', testedAt: T(5) })]);
    spec.given(inStatus.active).when(observe('expired', 'refresh token refused')).then([changed('active', 'expired', T(5), { reason: 'refresh token refused', testedAt: T(5) })]);
    spec.given(inStatus.error).when(observe('active', 'ignored')).then([changed('error', 'active', T(5), { testedAt: T(5) })]);
    spec.given(inStatus.active).when(observe('active')).thenNothingHappened();
    spec.given(inStatus.error).when(observe('error', 'HTTP 503')).thenNothingHappened();
  });
  it.each([['inactive'], ['testing'], ['expired']] as const)('leaves a %s connection alone', (from) => {
    spec.given(inStatus[from]).when(observe('error', 'x')).thenNothingHappened();
    spec.given(inStatus[from]).when(observe('active')).thenNothingHappened();
  });
});
