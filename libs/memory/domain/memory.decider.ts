import { conflict, notFound, type Decider } from '@lore/platform/kernel';
import type { Decision, MemoryEvent, MemoryType, Provenance } from './memory.events';

interface Owner {
  readonly workspaceId: string;
  readonly userId: string;
}

export type ActiveMemory = Owner & {
  readonly status: 'active';
  readonly memoryId: string;
  readonly memoryType: MemoryType;
  readonly content: string;
  readonly version: number;
  readonly createdAt: string;
  readonly updatedAt: string;
  /** Invalidated (by a model decision, or an add undone): out of lists and search, kept with its history. */
  readonly superseded: boolean;
  readonly expiresAt: string | null;
  /** The latest change a model decided (or an undo), which an undo reverts; null after a user's own change. */
  readonly lastDecision: { readonly decisionId: string; readonly decision: Decision; readonly previousContent: string | null } | null;
};

export type MemoryState =
  | { readonly status: 'absent' }
  | ActiveMemory
  /** Deleted, erasure possibly still pending: the owner is kept so a repeated delete is recognised. */
  | (Owner & { readonly status: 'deleted'; readonly memoryId: string });

interface Decided {
  /** Present when a model decided the change (memory extraction). */
  readonly provenance?: Provenance | undefined;
}

export type MemoryCommand =
  | (Owner & Decided & { readonly kind: 'create'; readonly memoryId: string; readonly memoryType: MemoryType; readonly content: string; readonly expiresAt?: string | null | undefined; readonly at: string })
  | (Owner & Decided & { readonly kind: 'replace'; readonly content: string; readonly at: string })
  | (Owner & { readonly kind: 'invalidate'; readonly provenance: Provenance; readonly at: string })
  | (Owner & { readonly kind: 'match'; readonly provenance: Provenance; readonly at: string })
  /** Reverts the latest model decision, which must be `provenance.undoes`. */
  | (Owner & { readonly kind: 'undo'; readonly provenance: Provenance & { readonly undoes: string }; readonly at: string })
  | (Owner & { readonly kind: 'delete'; readonly at: string; readonly reason?: 'expired' });

/**
 * The ownership rule, defined once: a memory exists for a caller only in its own workspace
 * and only if the caller owns it; to anyone else it is "not found", never "forbidden".
 * The decider applies it to every command, and a handler that must open a memory's sealed
 * content before deciding applies the same rule first.
 */
export function ownedMemory(state: MemoryState, owner: Owner): ActiveMemory {
  if (state.status === 'active' && state.workspaceId === owner.workspaceId && state.userId === owner.userId) return state;
  throw notFound('Memory');
}

export const memoryDecider: Decider<MemoryCommand, MemoryState, MemoryEvent> = {
  initialState: () => ({ status: 'absent' }),

  decide(command, state) {
    switch (command.kind) {
      case 'create':
        if (state.status !== 'absent') throw conflict(`memory ${command.memoryId} already exists`);
        return [
          {
            type: 'memory.MemoryCreated',
            data: {
              memoryId: command.memoryId,
              workspaceId: command.workspaceId,
              userId: command.userId,
              memoryType: command.memoryType,
              content: command.content,
              createdAt: command.at,
              ...(command.expiresAt == null ? {} : { expiresAt: command.expiresAt }),
              ...(command.provenance === undefined ? {} : { provenance: command.provenance }),
            },
          },
        ];
      case 'replace': {
        const memory = ownedMemory(state, command);
        return [
          {
            type: 'memory.MemoryReplaced',
            data: {
              memoryId: memory.memoryId,
              workspaceId: memory.workspaceId,
              userId: memory.userId,
              version: memory.version + 1,
              content: command.content,
              replacedAt: command.at,
              ...(command.provenance === undefined ? {} : { provenance: command.provenance }),
            },
          },
        ];
      }
      case 'invalidate': {
        const memory = ownedMemory(state, command);
        if (memory.superseded) throw conflict(`memory ${memory.memoryId} is already invalidated`);
        return [invalidated(memory, command.provenance, command.at)];
      }
      case 'match': {
        const memory = ownedMemory(state, command);
        return [{ type: 'memory.MemoryMatched', data: { ...ids(memory), matchedAt: command.at, provenance: command.provenance } }];
      }
      case 'undo':
        return [undo(ownedMemory(state, command), command.provenance, command.at)];
      case 'delete': {
        // Deleting what the owner already deleted changes nothing (its erasure completes).
        if (state.status === 'deleted' && state.workspaceId === command.workspaceId && state.userId === command.userId) return [];
        const memory = ownedMemory(state, command);
        return [
          {
            type: 'memory.MemoryDeleted',
            data: { ...ids(memory), deletedAt: command.at, ...(command.reason === undefined ? {} : { reason: command.reason }) },
          },
        ];
      }
    }
  },

  evolve(state, event) {
    switch (event.type) {
      case 'memory.MemoryCreated': {
        const { provenance, expiresAt, ...data } = event.data;
        return { status: 'active', ...data, version: 1, updatedAt: data.createdAt, superseded: false, expiresAt: expiresAt ?? null, lastDecision: decisionOf(provenance, null) };
      }
      case 'memory.MemoryReplaced':
        if (state.status !== 'active') return state;
        return {
          ...state,
          content: event.data.content,
          version: event.data.version,
          updatedAt: event.data.replacedAt,
          lastDecision: decisionOf(event.data.provenance, state.content),
        };
      case 'memory.MemoryInvalidated':
        if (state.status !== 'active') return state;
        return { ...state, superseded: true, version: event.data.version, updatedAt: event.data.invalidatedAt, lastDecision: decisionOf(event.data.provenance, null) };
      case 'memory.MemoryReinstated':
        if (state.status !== 'active') return state;
        return { ...state, superseded: false, version: event.data.version, updatedAt: event.data.reinstatedAt, lastDecision: decisionOf(event.data.provenance, null) };
      case 'memory.MemoryMatched':
        return state;
      case 'memory.MemoryDeleted':
        return { status: 'deleted', memoryId: event.data.memoryId, workspaceId: event.data.workspaceId, userId: event.data.userId };
    }
  },
};

function ids(memory: ActiveMemory): Owner & { readonly memoryId: string } {
  return { memoryId: memory.memoryId, workspaceId: memory.workspaceId, userId: memory.userId };
}

function invalidated(memory: ActiveMemory, provenance: Provenance, at: string): MemoryEvent {
  return { type: 'memory.MemoryInvalidated', data: { ...ids(memory), version: memory.version + 1, invalidatedAt: at, provenance } };
}

function decisionOf(provenance: Provenance | undefined, previousContent: string | null): ActiveMemory['lastDecision'] {
  return provenance === undefined ? null : { decisionId: provenance.decisionId, decision: provenance.decision, previousContent };
}

/**
 * Undo reverts the memory's latest model decision by a new event: an add is invalidated, an
 * update restores the version before it, an invalidation is reinstated. Only the latest: undoing
 * an older one would silently drop what came after, so that is a conflict, as is undoing an undo
 * (make the change again instead) or a decision a user's own edit has overtaken.
 */
function undo(memory: ActiveMemory, provenance: Provenance & { readonly undoes: string }, at: string): MemoryEvent {
  const last = memory.lastDecision;
  if (last === null || last.decisionId !== provenance.undoes) {
    throw conflict(`decision ${provenance.undoes} is not the latest change of memory ${memory.memoryId}: only the latest model decision can be undone`);
  }
  switch (last.decision) {
    case 'add':
      return invalidated(memory, provenance, at);
    case 'update':
      if (last.previousContent === null) throw conflict(`decision ${last.decisionId} has no earlier version to restore`);
      return { type: 'memory.MemoryReplaced', data: { ...ids(memory), version: memory.version + 1, content: last.previousContent, replacedAt: at, provenance } };
    case 'invalidate':
      return { type: 'memory.MemoryReinstated', data: { ...ids(memory), version: memory.version + 1, reinstatedAt: at, provenance } };
    case 'none':
    case 'undo':
      throw conflict(`decision ${last.decisionId} (${last.decision}) cannot be undone`);
  }
}
