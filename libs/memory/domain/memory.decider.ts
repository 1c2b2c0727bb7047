import { conflict, notFound, type Decider } from '@lore/platform/kernel';
import type { MemoryEvent } from './memory.events';

type MemoryType = 'user' | 'agent' | 'team' | 'workflow';

export type MemoryState =
  | { readonly status: 'absent' }
  | {
      readonly status: 'active';
      readonly memoryId: string;
      readonly workspaceId: string;
      readonly userId: string;
      readonly memoryType: MemoryType;
      readonly content: string;
      readonly version: number;
      readonly createdAt: string;
      readonly updatedAt: string;
    }
  | { readonly status: 'deleted'; readonly memoryId: string };

interface Owner {
  readonly workspaceId: string;
  readonly userId: string;
}

export type MemoryCommand =
  | (Owner & { readonly kind: 'create'; readonly memoryId: string; readonly memoryType: MemoryType; readonly content: string; readonly at: string })
  | (Owner & { readonly kind: 'replace'; readonly content: string; readonly at: string })
  | (Owner & { readonly kind: 'delete'; readonly at: string });

/** A memory exists for a caller only in its own workspace and only if the caller owns it. */
function ownedBy(state: MemoryState, owner: Owner): state is Extract<MemoryState, { status: 'active' }> {
  return state.status === 'active' && state.workspaceId === owner.workspaceId && state.userId === owner.userId;
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
      case 'replace':
        if (!ownedBy(state, command)) throw notFound('Memory');
        return [
          {
            type: 'memory.MemoryReplaced',
            data: {
              memoryId: state.memoryId,
              workspaceId: state.workspaceId,
              userId: state.userId,
              version: state.version + 1,
              content: command.content,
              replacedAt: command.at,
            },
          },
        ];
      case 'delete':
        if (!ownedBy(state, command)) throw notFound('Memory');
        return [
          {
            type: 'memory.MemoryDeleted',
            data: { memoryId: state.memoryId, workspaceId: state.workspaceId, userId: state.userId, deletedAt: command.at },
          },
        ];
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
        return { status: 'deleted', memoryId: event.data.memoryId };
    }
  },
};
