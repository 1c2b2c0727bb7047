import { conflict, notFound, type Decider } from '@lore/platform/kernel';
import type { ConnectError, ConnectSessionEvent } from './connect-session.events';

type Created = Extract<ConnectSessionEvent, { type: 'connections.ConnectSessionCreated' }>['data'];

/** Where a session is: `created` until its URL is visited, `authorizing` at the provider, `exchanging` once a callback took it. */
export type ConnectSessionStatus = 'created' | 'authorizing' | 'exchanging' | 'completed' | 'failed';

export type LiveConnectSession = Omit<Created, 'createdAt'> & {
  readonly status: ConnectSessionStatus;
  readonly createdAt: string;
  readonly stateHash: string | null;
  readonly sealedVerifier: string | null;
  readonly outcome: { readonly connectionId: string; readonly connectionStatus: string; readonly testPassed: boolean } | null;
  readonly error: { readonly code: ConnectError; readonly message: string } | null;
  readonly endedAt: string | null;
};

export type ConnectSessionState = { readonly status: 'absent' } | LiveConnectSession;

export type ConnectSessionCommand =
  | { readonly kind: 'create'; readonly session: Omit<Created, 'createdAt'>; readonly at: string }
  | { readonly kind: 'authorize'; readonly stateHash: string; readonly sealedVerifier: string | null; readonly at: string }
  | { readonly kind: 'exchange'; readonly at: string }
  | { readonly kind: 'complete'; readonly connectionId: string; readonly connectionStatus: string; readonly testPassed: boolean; readonly at: string }
  | { readonly kind: 'fail'; readonly error: ConnectError; readonly message: string; readonly at: string };

/** The message of an already used session (a second visit, a replayed callback): the session itself is left as it is. */
export const SESSION_ALREADY_USED = 'session_already_used';

export const ended = (session: LiveConnectSession): boolean => session.status === 'completed' || session.status === 'failed';
export const expiredAt = (session: LiveConnectSession, at: string): boolean => Date.parse(at) >= Date.parse(session.expiresAt);

function live(state: ConnectSessionState): LiveConnectSession {
  if (state.status === 'absent') throw notFound('Connect session');
  return state;
}

function failed(session: LiveConnectSession, error: ConnectError, message: string, at: string): ConnectSessionEvent[] {
  return [{ type: 'connections.ConnectSessionFailed', data: { sessionId: session.sessionId, error, message, at } }];
}

/**
 * One use, in order: visited once (`authorize`), called back once (`exchange`), then ended
 * once. A step taken twice is a conflict (`session_already_used`): a replayed URL or
 * callback never runs the flow again. Past `expiresAt` a visit or a callback ends the
 * session as `session_expired` instead.
 */
export const connectSessionDecider: Decider<ConnectSessionCommand, ConnectSessionState, ConnectSessionEvent> = {
  initialState: () => ({ status: 'absent' }),

  decide(command, state) {
    switch (command.kind) {
      case 'create':
        if (state.status !== 'absent') throw conflict(`connect session ${command.session.sessionId} already exists`);
        return [{ type: 'connections.ConnectSessionCreated', data: { ...command.session, createdAt: command.at } }];
      case 'authorize': {
        const session = live(state);
        if (session.status !== 'created') throw conflict(SESSION_ALREADY_USED);
        if (expiredAt(session, command.at)) return failed(session, 'session_expired', 'the connect session expired before its URL was visited', command.at);
        return [{ type: 'connections.ConnectSessionAuthorizing', data: { sessionId: session.sessionId, stateHash: command.stateHash, sealedVerifier: command.sealedVerifier, at: command.at } }];
      }
      case 'exchange': {
        const session = live(state);
        if (session.status !== 'authorizing') throw conflict(SESSION_ALREADY_USED);
        if (expiredAt(session, command.at)) return failed(session, 'session_expired', 'the connect session expired before the provider sent the user back', command.at);
        return [{ type: 'connections.ConnectSessionExchanging', data: { sessionId: session.sessionId, at: command.at } }];
      }
      case 'complete': {
        const session = live(state);
        if (session.status !== 'exchanging') throw conflict(SESSION_ALREADY_USED);
        return [{ type: 'connections.ConnectSessionCompleted', data: { sessionId: session.sessionId, connectionId: command.connectionId, connectionStatus: command.connectionStatus, testPassed: command.testPassed, at: command.at } }];
      }
      case 'fail': {
        const session = live(state);
        if (ended(session)) return [];
        return failed(session, command.error, command.message, command.at);
      }
    }
  },

  evolve(state, event) {
    switch (event.type) {
      case 'connections.ConnectSessionCreated':
        return { ...event.data, status: 'created', stateHash: null, sealedVerifier: null, outcome: null, error: null, endedAt: null };
      case 'connections.ConnectSessionAuthorizing':
        return state.status === 'absent' ? state : { ...state, status: 'authorizing', stateHash: event.data.stateHash, sealedVerifier: event.data.sealedVerifier };
      case 'connections.ConnectSessionExchanging':
        return state.status === 'absent' ? state : { ...state, status: 'exchanging' };
      case 'connections.ConnectSessionCompleted': {
        if (state.status === 'absent') return state;
        const { connectionId, connectionStatus, testPassed, at } = event.data;
        return { ...state, status: 'completed', outcome: { connectionId, connectionStatus, testPassed }, endedAt: at };
      }
      case 'connections.ConnectSessionFailed':
        return state.status === 'absent' ? state : { ...state, status: 'failed', error: { code: event.data.error, message: event.data.message }, endedAt: event.data.at };
    }
  },
};
