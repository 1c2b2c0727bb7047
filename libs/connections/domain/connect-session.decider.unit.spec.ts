import { deciderSpec } from '@lore/platform/testing';
import { connectSessionDecider, SESSION_ALREADY_USED, type ConnectSessionCommand } from './connect-session.decider';
import type { ConnectSessionEvent } from './connect-session.events';

const T = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
const spec = deciderSpec(connectSessionDecider);
const session = {
  sessionId: 'cs_1',
  workspaceId: 'ws',
  userId: 'alice',
  createdBy: 'api_key:k',
  integration: 'gitlab',
  authMethodId: 'oauth2',
  scopes: ['read_api'],
  redirectUrl: 'https://app.example/done',
  config: {},
  label: 'GitLab',
  connectionId: null,
  linkTokenHash: 'h1',
  expiresAt: T(60),
};
const created: ConnectSessionEvent = { type: 'connections.ConnectSessionCreated', data: { ...session, createdAt: T(0) } };
const authorizing: ConnectSessionEvent = { type: 'connections.ConnectSessionAuthorizing', data: { sessionId: 'cs_1', stateHash: 'h2', sealedVerifier: 'dk:sealed', at: T(1) } };
const exchanging: ConnectSessionEvent = { type: 'connections.ConnectSessionExchanging', data: { sessionId: 'cs_1', at: T(2) } };
const completed: ConnectSessionEvent = { type: 'connections.ConnectSessionCompleted', data: { sessionId: 'cs_1', connectionId: 'conn_1', connectionStatus: 'active', testPassed: true, at: T(3) } };
const failed = (error: string, message: string, at: string): ConnectSessionEvent => ({ type: 'connections.ConnectSessionFailed', data: { sessionId: 'cs_1', error, message, at } }) as ConnectSessionEvent;
const at = (s: number, c: Record<string, unknown>) => ({ ...c, at: T(s) }) as ConnectSessionCommand;

describe('connectSessionDecider: one use, in order', () => {
  it('is created once, visited once, called back once, ended once', () => {
    spec.given([]).when(at(0, { kind: 'create', session })).then([created]);
    spec.given([created]).when(at(0, { kind: 'create', session })).thenThrows('conflict');
    spec.given([created]).when(at(1, { kind: 'authorize', stateHash: 'h2', sealedVerifier: 'dk:sealed' })).then([authorizing]);
    spec.given([created, authorizing]).when(at(1, { kind: 'authorize', stateHash: 'h3', sealedVerifier: null })).thenThrows('conflict', SESSION_ALREADY_USED);
    spec.given([created, authorizing]).when(at(2, { kind: 'exchange' })).then([exchanging]);
    spec.given([created, authorizing, exchanging]).when(at(2, { kind: 'exchange' })).thenThrows('conflict', SESSION_ALREADY_USED);
    spec.given([created, authorizing, exchanging]).when(at(3, { kind: 'complete', connectionId: 'conn_1', connectionStatus: 'active', testPassed: true })).then([completed]);
    spec.given([created, authorizing, exchanging, completed]).when(at(4, { kind: 'exchange' })).thenThrows('conflict', SESSION_ALREADY_USED);
  });

  it('refuses a callback for a session never visited, and a visit after a callback', () => {
    spec.given([created]).when(at(2, { kind: 'exchange' })).thenThrows('conflict');
    spec.given([created, authorizing, exchanging]).when(at(3, { kind: 'authorize', stateHash: 'x', sealedVerifier: null })).thenThrows('conflict');
  });

  it('ends an expired session as session_expired, at the visit or at the callback', () => {
    spec.given([created]).when(at(60, { kind: 'authorize', stateHash: 'h2', sealedVerifier: null })).then([failed('session_expired', 'the connect session expired before its URL was visited', T(60))]);
    spec.given([created, authorizing]).when(at(61, { kind: 'exchange' })).then([failed('session_expired', 'the connect session expired before the provider sent the user back', T(61))]);
  });

  it('fails once; an ended session stays as it ended', () => {
    spec.given([created, authorizing]).when(at(2, { kind: 'fail', error: 'access_denied', message: 'declined' })).then([failed('access_denied', 'declined', T(2))]);
    spec.given([created, authorizing, failed('access_denied', 'declined', T(2))]).when(at(3, { kind: 'fail', error: 'state_mismatch', message: 'x' })).thenNothingHappened();
    spec.given([created, authorizing, exchanging, completed]).when(at(4, { kind: 'fail', error: 'state_mismatch', message: 'x' })).thenNothingHappened();
    spec.given([]).when(at(1, { kind: 'fail', error: 'state_mismatch', message: 'x' })).thenThrows('not_found');
  });
});
