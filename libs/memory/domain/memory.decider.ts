import { conflict, notFound, type Decider } from '@lore/platform/kernel';
import type { MemoryEvent, MemoryType } from './memory.events';

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
};

export type MemoryState =
  | { readonly status: 'absent' }
  | ActiveMemory
  /** Deleted, erasure possibly still pending: the owner is kept so a repeated delete is recognised. */
  | (Owner & { readonly status: 'deleted'; readonly memoryId: string });

export type MemoryCommand =
  | (Owner & { readonly kind: 'create'; readonly memoryId: string; readonly memoryType: MemoryType; readonly content: string; readonly at: string })
  | (Owner & { readonly kind: 'replace'; readonly content: string; readonly at: string })
  | (Owner & { readonly kind: 'delete'; readonly at: string });

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
            },
          },
        ];
      }
      case 'delete': {
        // Deleting what the owner already deleted changes nothing (its erasure completes).
        if (state.status === 'deleted' && state.workspaceId === command.workspaceId && state.userId === command.userId) return [];
        const memory = ownedMemory(state, command);
        return [
          {
            type: 'memory.MemoryDeleted',
            data: { memoryId: memory.memoryId, workspaceId: memory.workspaceId, userId: memory.userId, deletedAt: command.at },
          },
        ];
      }
    }
  },

  evolve(state, event) {
    switch (event.type) {
      case 'memory.MemoryCreated':
        return { status: 'active', ...event.data, version: 1, updatedAt: event.data.createdAt };
      case 'memory.MemoryReplaced':
        if (state.status !== 'active') return state;
        return { ...state, content: event.data.content, version: event.data.version, updatedAt: event.data.replacedAt };
      case 'memory.MemoryDeleted':
        return { status: 'deleted', memoryId: event.data.memoryId, workspaceId: event.data.workspaceId, userId: event.data.userId };
    }
  },
};
