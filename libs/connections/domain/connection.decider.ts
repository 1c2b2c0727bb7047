import { conflict, notFound, type Decider } from '@lore/platform/kernel';
import type { ConnectionEvent, ConnectionStatus } from './connection.events';

interface Owner {
  readonly workspaceId: string;
  readonly userId: string;
}

export type LiveConnection = Owner & {
  readonly status: ConnectionStatus;
  readonly connectionId: string;
  readonly integration: string;
  readonly authMethodId: string;
  /** Not secret (the catalog marks no config field secret): kept for merge patches and re-validation. */
  readonly config: Readonly<Record<string, unknown>>;
  readonly credentialId: string | null;
  /** When the running test started: a test older than the command's `staleTestMs` was cut off (a crash) and may be restarted. */
  readonly testingSince: string | null;
  /** The status the running test started from: a disabled connection that passes stays disabled. */
  readonly beforeTest: ConnectionStatus | null;
};

export type ConnectionState =
  | { readonly status: 'absent' }
  | LiveConnection
  /** Keeps the credential it used, so a repeated delete can still let go of it. */
  | (Owner & { readonly status: 'deleted'; readonly connectionId: string; readonly credentialId: string | null });

type Created = Extract<ConnectionEvent, { type: 'connections.ConnectionCreated' }>['data'];

export type ConnectionCommand =
  | { readonly kind: 'create'; readonly connection: Omit<Created, 'createdAt'>; readonly at: string }
  /**
   * One PATCH, decided at once (all of it or nothing). Validated by the handler. A new
   * credential makes a connection in `error` or `expired` usable again; `status` is the owner
   * enabling or disabling it.
   */
  | (Owner & {
      readonly kind: 'update';
      readonly label?: string;
      readonly config?: Record<string, unknown>;
      readonly credential?: { readonly credentialId: string | null; readonly authMethodId: string };
      readonly status?: 'active' | 'inactive';
      readonly at: string;
    })
  | (Owner & { readonly kind: 'start-test'; readonly staleTestMs: number; readonly at: string })
  | (Owner & { readonly kind: 'finish-test'; readonly outcome: 'active' | 'error' | 'expired'; readonly reason: string | null; readonly at: string })
  | (Owner & { readonly kind: 'delete'; readonly at: string })
  /**
   * The periodic health check's finding (README, "Health over time"): no `testing` step, and an
   * event only when the status changes (fails, expires, recovers). It watches `active` and
   * `error` connections; any other status (disabled, under test, waiting for new credentials)
   * is left alone.
   */
  | (Owner & { readonly kind: 'observe'; readonly outcome: 'active' | 'error' | 'expired'; readonly reason: string | null; readonly at: string });

/**
 * The lifecycle (README, "Connection lifecycle"): which status each command may leave from.
 * A test runs from any status but `testing` (unless that test is stale) and ends in `active`
 * (`inactive` when it started from there: testing does not enable), `error` or `expired`; the owner switches between `active` and `inactive`, and may disable a
 * failing connection but not declare it working; new credentials make an `error` or `expired`
 * connection `active`; nothing changes while a test runs except deleting.
 */
export const ALLOWED_FROM: Readonly<Record<'set-status:active' | 'set-status:inactive' | 'start-test' | 'finish-test' | 'update', readonly ConnectionStatus[]>> = {
  'set-status:active': ['active', 'inactive'],
  'set-status:inactive': ['active', 'inactive', 'error', 'expired'],
  'start-test': ['active', 'inactive', 'error', 'expired'],
  'finish-test': ['testing'],
  update: ['active', 'inactive', 'error', 'expired'],
};

/** A connection exists for a caller only in its own workspace and if the caller owns it; to anyone else it is "not found". */
export function ownedConnection(state: ConnectionState, owner: Owner): LiveConnection {
  if (state.status !== 'absent' && state.status !== 'deleted' && state.workspaceId === owner.workspaceId && state.userId === owner.userId) return state;
  throw notFound('Connection');
}

function allowed(connection: LiveConnection, step: keyof typeof ALLOWED_FROM): void {
  if (!ALLOWED_FROM[step].includes(connection.status)) {
    throw conflict(connection.status === 'testing' ? 'The connection is being tested; try again when the test has finished' : `A connection that is ${connection.status} cannot ${describe(step)}`);
  }
}

function describe(step: keyof typeof ALLOWED_FROM): string {
  switch (step) {
    case 'set-status:active':
      return 'be set active without a successful test or new credentials';
    case 'set-status:inactive':
      return 'be disabled';
    case 'start-test':
      return 'be tested';
    case 'finish-test':
      return 'finish a test it is not running';
    case 'update':
      return 'be changed';
  }
}

/** Every event names its connection and owner, so subscribers and projections need no lookup. */
function ids(connection: LiveConnection): { connectionId: string; workspaceId: string; userId: string; integration: string } {
  return { connectionId: connection.connectionId, workspaceId: connection.workspaceId, userId: connection.userId, integration: connection.integration };
}

function statusChanged(connection: LiveConnection, to: ConnectionStatus, at: string, reason: string | null = null, testedAt: string | null = null): ConnectionEvent[] {
  if (to === connection.status) return [];
  return [{ type: 'connections.ConnectionStatusChanged', data: { ...ids(connection), from: connection.status, to, reason, testedAt, changedAt: at } }];
}

export const connectionDecider: Decider<ConnectionCommand, ConnectionState, ConnectionEvent> = {
  initialState: () => ({ status: 'absent' }),

  decide(command, state) {
    switch (command.kind) {
      case 'create':
        if (state.status !== 'absent') throw conflict(`connection ${command.connection.connectionId} already exists`);
        return [{ type: 'connections.ConnectionCreated', data: { ...command.connection, createdAt: command.at } }];
      case 'update': {
        const connection = ownedConnection(state, command);
        allowed(connection, 'update');
        const credential = command.credential;
        const changes = {
          ...(command.label === undefined ? {} : { label: command.label }),
          ...(command.config === undefined ? {} : { config: command.config }),
          ...(credential === undefined ? {} : { credentialId: credential.credentialId, previousCredentialId: connection.credentialId, authMethodId: credential.authMethodId }),
        };
        let status = credential !== undefined && (connection.status === 'error' || connection.status === 'expired') ? 'active' : connection.status;
        if (command.status !== undefined) {
          allowed({ ...connection, status }, `set-status:${command.status}`);
          status = command.status;
        }
        const updated: ConnectionEvent[] = Object.keys(changes).length === 0 ? [] : [{ type: 'connections.ConnectionUpdated', data: { ...ids(connection), ...changes, updatedAt: command.at } }];
        return [...updated, ...statusChanged(connection, status, command.at)];
      }
      case 'start-test': {
        const connection = ownedConnection(state, command);
        const stale = connection.status === 'testing' && connection.testingSince !== null && Date.parse(command.at) - Date.parse(connection.testingSince) > command.staleTestMs;
        if (!stale) allowed(connection, 'start-test');
        return [{ type: 'connections.ConnectionStatusChanged', data: { ...ids(connection), from: connection.status, to: 'testing', reason: null, testedAt: null, changedAt: command.at } }];
      }
      case 'finish-test': {
        const connection = ownedConnection(state, command);
        allowed(connection, 'finish-test');
        const to = command.outcome === 'active' && connection.beforeTest === 'inactive' ? 'inactive' : command.outcome;
        return [{ type: 'connections.ConnectionStatusChanged', data: { ...ids(connection), from: 'testing', to, reason: command.reason, testedAt: command.at, changedAt: command.at } }];
      }
      case 'observe': {
        const connection = ownedConnection(state, command);
        if (connection.status !== 'active' && connection.status !== 'error') return [];
        return statusChanged(connection, command.outcome, command.at, command.outcome === 'active' ? null : command.reason, command.at);
      }
      case 'delete': {
        if (state.status === 'deleted' && state.workspaceId === command.workspaceId && state.userId === command.userId) return [];
        const connection = ownedConnection(state, command);
        return [
          {
            type: 'connections.ConnectionDeleted',
            data: { ...ids(connection), credentialId: connection.credentialId, deletedAt: command.at },
          },
        ];
      }
    }
  },

  evolve(state, event) {
    switch (event.type) {
      case 'connections.ConnectionCreated': {
        const d = event.data;
        return {
          status: 'active',
          connectionId: d.connectionId,
          workspaceId: d.workspaceId,
          userId: d.userId,
          integration: d.integration,
          authMethodId: d.authMethodId,
          config: d.config,
          credentialId: d.credentialId,
          testingSince: null,
          beforeTest: null,
        };
      }
      case 'connections.ConnectionUpdated': {
        if (state.status === 'absent' || state.status === 'deleted') return state;
        const d = event.data;
        return {
          ...state,
          ...(d.config === undefined ? {} : { config: d.config }),
          ...(d.credentialId === undefined ? {} : { credentialId: d.credentialId }),
          ...(d.authMethodId === undefined ? {} : { authMethodId: d.authMethodId }),
        };
      }
      case 'connections.ConnectionStatusChanged':
        if (state.status === 'absent' || state.status === 'deleted') return state;
        if (event.data.to !== 'testing') return { ...state, status: event.data.to, testingSince: null, beforeTest: null };
        // A stale test restarted keeps the status the first one started from.
        return { ...state, status: 'testing', testingSince: event.data.changedAt, beforeTest: event.data.from === 'testing' ? state.beforeTest : event.data.from };
      case 'connections.ConnectionDeleted':
        return { status: 'deleted', connectionId: event.data.connectionId, workspaceId: event.data.workspaceId, userId: event.data.userId, credentialId: event.data.credentialId };
    }
  },
};
