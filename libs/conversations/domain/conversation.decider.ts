import { conflict, invalid, notFound, type Decider } from '@lore/platform/kernel';
import type { ConversationEvent } from './conversation.events';
import { PersistentMap } from './persistent-map';

export interface Owner {
  readonly workspaceId: string;
  readonly userId: string;
}

export type ConversationStatus = 'active' | 'archived';

/** A message as the decider knows it: the tree's shape, never its (sealed) words. */
export interface MessageNode {
  readonly messageId: string;
  readonly parentMessageId: string | null;
  readonly role: string;
  readonly messageType: string;
  readonly senderId: string;
  readonly clientMessageId: string | null;
  readonly editOf: string | null;
  /** The content's checksum, sealed with the message's own key (which it also names). */
  readonly checksum: string;
  readonly deleted: boolean;
}

/** Whether memories are extracted in the background after each user message of the conversation. */
export type MemoryExtractionSetting = 'off' | 'after_user_turn';

/** Children lists are keyed by parent id; the roots under this key. */
export const ROOTS = '';

export type LiveConversation = Owner & {
  readonly status: ConversationStatus;
  readonly conversationId: string;
  readonly createdBy: string;
  readonly collectionIds: readonly string[];
  readonly memoryExtraction: MemoryExtractionSetting;
  readonly content: string;
  readonly createdAt: string;
  readonly updatedAt: string;
  /** Where the active path ends; null while the conversation has no message. */
  readonly currentMessageId: string | null;
  readonly messages: PersistentMap<string, MessageNode>;
  readonly children: PersistentMap<string, readonly string[]>;
  readonly clientIds: PersistentMap<string, string>;
};

export type ConversationState =
  | { readonly status: 'absent' }
  | LiveConversation
  /** Deleted, erasure possibly still pending: the owner is kept so a repeated delete is recognised. */
  | (Owner & { readonly status: 'deleted'; readonly conversationId: string });

type MessageFields = {
  readonly role: string;
  readonly messageType: string;
  readonly senderId: string;
  readonly clientMessageId: string | null;
  readonly content: string;
  readonly checksum: string;
  /** Set by the handler when the same message already exists (same checksum, role and sender in the same place): nothing to append. */
  readonly duplicateOf: string | null;
  readonly sentAt: string;
};

export type ConversationCommand =
  | (Owner & {
      readonly kind: 'start';
      readonly conversationId: string;
      readonly createdBy: string;
      readonly status: ConversationStatus;
      readonly collectionIds: readonly string[];
      readonly memoryExtraction?: MemoryExtractionSetting;
      readonly content: string;
      readonly at: string;
    })
  | (Owner & {
      readonly kind: 'update';
      readonly content?: string;
      readonly collectionIds?: readonly string[];
      readonly memoryExtraction?: MemoryExtractionSetting;
      readonly status?: ConversationStatus;
      /** Moves the active path to end at this message (a branch the client chose). */
      readonly currentMessageId?: string;
      readonly at: string;
    })
  | (Owner &
      MessageFields & {
        readonly kind: 'append';
        readonly messageId: string;
        /** null: continue the active path (after the current message). */
        readonly parentMessageId: string | null;
        readonly at: string;
      })
  | (Owner &
      MessageFields & {
        readonly kind: 'edit';
        /** The message edited: the new one becomes its sibling. */
        readonly editOf: string;
        readonly messageId: string;
        readonly at: string;
      })
  | (Owner & { readonly kind: 'update-message'; readonly messageId: string; readonly content: string; readonly at: string })
  | (Owner & { readonly kind: 'delete-message'; readonly messageId: string; readonly at: string })
  | (Owner & {
      readonly kind: 'summarise';
      readonly throughMessageId: string;
      readonly messageCount: number;
      readonly content: string;
      readonly model: string;
      readonly promptVersion: string;
      readonly at: string;
    })
  | (Owner & { readonly kind: 'delete'; readonly at: string });

/**
 * The ownership rule, defined once: a conversation exists for a caller only in its own
 * workspace and only if the caller owns it; to anyone else it is "not found", never
 * "forbidden". Handlers that open sealed content before deciding apply it first.
 */
export function ownedConversation(state: ConversationState, owner: Owner): LiveConversation {
  if ((state.status === 'active' || state.status === 'archived') && state.workspaceId === owner.workspaceId && state.userId === owner.userId) return state;
  throw notFound('Conversation');
}

/** A message of the conversation that is not deleted. */
export function liveMessage(conversation: LiveConversation, messageId: string): MessageNode | null {
  const node = conversation.messages.get(messageId);
  return node === undefined || node.deleted ? null : node;
}

/** The messages from the root to `leafId`, in order. */
export function pathTo(conversation: LiveConversation, leafId: string | null): MessageNode[] {
  const path: MessageNode[] = [];
  for (let id = leafId; id !== null; ) {
    const node = liveMessage(conversation, id);
    if (node === null) break;
    path.push(node);
    id = node.parentMessageId;
  }
  return path.reverse();
}

/** The live children of a message (or the roots), oldest first. */
export function childrenOf(conversation: LiveConversation, parentId: string | null): MessageNode[] {
  return (conversation.children.get(parentId ?? ROOTS) ?? []).map((id) => liveMessage(conversation, id)).filter((n) => n !== null);
}

function writable(conversation: LiveConversation): LiveConversation {
  if (conversation.status === 'archived') throw archived();
  return conversation;
}

/**
 * A retried append or edit: the live message that has its client id, or the one the handler
 * found with the same checksum, role and sender in the same place. Nothing is appended. If the
 * active path runs through it (a late retry: the conversation went on after it) the path stays;
 * otherwise it moves to it, as the first attempt moved it (unless the conversation was archived
 * since). Null when the message is new. A client id whose message was deleted is free again.
 */
function repeatedMessage(conversation: LiveConversation, command: Owner & MessageFields & { readonly at: string }): ConversationEvent[] | null {
  const byClientId = command.clientMessageId === null ? undefined : conversation.clientIds.get(command.clientMessageId);
  const repeated = [byClientId, command.duplicateOf].find((id) => id !== undefined && id !== null && liveMessage(conversation, id) !== null);
  if (repeated === undefined || repeated === null) return null;
  if (conversation.status === 'archived' || pathTo(conversation, conversation.currentMessageId).some((node) => node.messageId === repeated)) return [];
  return [{ type: 'conversations.CurrentMessageSelected', data: { conversationId: conversation.conversationId, messageId: repeated, selectedAt: command.at } }];
}

const archived = () => conflict('The conversation is archived; set its status to active to change its messages');

/** A live message of the conversation, else 404. */
export function messageOf(conversation: LiveConversation, messageId: string): MessageNode {
  const node = liveMessage(conversation, messageId);
  if (node === null) throw notFound('Message');
  return node;
}

/** The message and every message below it, depth first. */
export function subtree(conversation: LiveConversation, messageId: string): string[] {
  const ids: string[] = [];
  const stack = [messageId];
  while (stack.length > 0) {
    const id = stack.pop() as string;
    ids.push(id);
    for (const child of childrenOf(conversation, id)) stack.push(child.messageId);
  }
  return ids;
}

export const conversationDecider: Decider<ConversationCommand, ConversationState, ConversationEvent> = {
  initialState: () => ({ status: 'absent' }),

  decide(command, state) {
    switch (command.kind) {
      case 'start':
        if (state.status !== 'absent') throw conflict(`conversation ${command.conversationId} already exists`);
        return [
          {
            type: 'conversations.ConversationStarted',
            data: {
              conversationId: command.conversationId,
              workspaceId: command.workspaceId,
              userId: command.userId,
              createdBy: command.createdBy,
              status: command.status,
              collectionIds: [...command.collectionIds],
              ...(command.memoryExtraction === undefined || command.memoryExtraction === 'off' ? {} : { memoryExtraction: command.memoryExtraction }),
              content: command.content,
              createdAt: command.at,
            },
          },
        ];
      case 'update': {
        const conversation = ownedConversation(state, command);
        const events: ConversationEvent[] = [];
        const data = {
          conversationId: conversation.conversationId,
          ...(command.content === undefined ? {} : { content: command.content }),
          ...(command.collectionIds === undefined ? {} : { collectionIds: [...command.collectionIds] }),
          ...(command.memoryExtraction === undefined || command.memoryExtraction === conversation.memoryExtraction ? {} : { memoryExtraction: command.memoryExtraction }),
          ...(command.status === undefined || command.status === conversation.status ? {} : { status: command.status }),
          updatedAt: command.at,
        };
        if (Object.keys(data).length > 2) events.push({ type: 'conversations.ConversationUpdated', data });
        const selected = command.currentMessageId;
        if (selected !== undefined) {
          if (liveMessage(conversation, selected) === null) throw invalid(['message', 'currentMessageId'], `Message ${selected} is not in this conversation`);
          if ((command.status ?? conversation.status) === 'archived') throw archived();
          if (selected !== conversation.currentMessageId) {
            events.push({ type: 'conversations.CurrentMessageSelected', data: { conversationId: conversation.conversationId, messageId: selected, selectedAt: command.at } });
          }
        }
        return events;
      }
      case 'append': {
        const conversation = ownedConversation(state, command);
        const repeated = repeatedMessage(conversation, command);
        if (repeated !== null) return repeated;
        writable(conversation);
        const parent = command.parentMessageId ?? conversation.currentMessageId;
        if (parent !== null && liveMessage(conversation, parent) === null) {
          throw invalid(['message', 'parentMessageId'], `Message ${parent} is not in this conversation`);
        }
        return [appended(conversation, command, parent, null)];
      }
      case 'edit': {
        const conversation = ownedConversation(state, command);
        const repeated = repeatedMessage(conversation, command);
        if (repeated !== null) return repeated;
        writable(conversation);
        const original = messageOf(conversation, command.editOf);
        return [appended(conversation, command, original.parentMessageId, original.messageId)];
      }
      case 'update-message': {
        const conversation = writable(ownedConversation(state, command));
        messageOf(conversation, command.messageId);
        return [
          {
            type: 'conversations.MessageUpdated',
            data: { conversationId: conversation.conversationId, messageId: command.messageId, content: command.content, updatedAt: command.at },
          },
        ];
      }
      case 'delete-message': {
        const conversation = ownedConversation(state, command);
        const node = conversation.messages.get(command.messageId);
        if (node === undefined) throw notFound('Message');
        if (node.deleted) return []; // deleted before: its erasure completes
        const messageIds = subtree(conversation, node.messageId);
        const current = conversation.currentMessageId;
        const currentMessageId = current !== null && messageIds.includes(current) ? node.parentMessageId : current;
        return [
          {
            type: 'conversations.MessagesDeleted',
            data: { conversationId: conversation.conversationId, messageIds, currentMessageId, deletedAt: command.at },
          },
        ];
      }
      case 'summarise': {
        // A cache: allowed on an archived conversation too (reading its context is).
        const conversation = ownedConversation(state, command);
        messageOf(conversation, command.throughMessageId);
        const { throughMessageId, messageCount, content, model, promptVersion } = command;
        return [{ type: 'conversations.BranchSummarised', data: { conversationId: conversation.conversationId, throughMessageId, messageCount, content, model, promptVersion, summarisedAt: command.at } }];
      }
      case 'delete': {
        // Deleting what the owner already deleted changes nothing (its erasure completes).
        if (state.status === 'deleted' && state.workspaceId === command.workspaceId && state.userId === command.userId) return [];
        const conversation = ownedConversation(state, command);
        return [
          {
            type: 'conversations.ConversationDeleted',
            data: { conversationId: conversation.conversationId, workspaceId: conversation.workspaceId, userId: conversation.userId, deletedAt: command.at },
          },
        ];
      }
    }
  },

  evolve(state, event) {
    if (event.type === 'conversations.ConversationStarted') {
      const d = event.data;
      return {
        ...d,
        memoryExtraction: d.memoryExtraction ?? 'off',
        updatedAt: d.createdAt,
        currentMessageId: null,
        messages: PersistentMap.empty(),
        children: PersistentMap.empty(),
        clientIds: PersistentMap.empty(),
      };
    }
    if (event.type === 'conversations.ConversationDeleted') {
      const d = event.data;
      return { status: 'deleted', conversationId: d.conversationId, workspaceId: d.workspaceId, userId: d.userId };
    }
    if (state.status !== 'active' && state.status !== 'archived') return state;
    switch (event.type) {
      case 'conversations.ConversationUpdated': {
        const d = event.data;
        return {
          ...state,
          ...(d.content === undefined ? {} : { content: d.content }),
          ...(d.collectionIds === undefined ? {} : { collectionIds: d.collectionIds }),
          ...(d.memoryExtraction === undefined ? {} : { memoryExtraction: d.memoryExtraction }),
          ...(d.status === undefined ? {} : { status: d.status }),
          updatedAt: d.updatedAt,
        };
      }
      case 'conversations.MessageAppended': {
        const d = event.data;
        const node: MessageNode = {
          messageId: d.messageId,
          parentMessageId: d.parentMessageId,
          role: d.role,
          messageType: d.messageType,
          senderId: d.senderId,
          clientMessageId: d.clientMessageId,
          editOf: d.editOf,
          checksum: d.checksum,
          deleted: false,
        };
        const siblingsKey = d.parentMessageId ?? ROOTS;
        return {
          ...state,
          currentMessageId: d.messageId,
          updatedAt: d.createdAt,
          messages: state.messages.set(d.messageId, node),
          children: state.children.set(siblingsKey, [...(state.children.get(siblingsKey) ?? []), d.messageId]),
          clientIds: d.clientMessageId === null ? state.clientIds : state.clientIds.set(d.clientMessageId, d.messageId),
        };
      }
      case 'conversations.MessageUpdated':
        // Changes in place never change the content, so the tree and the checksums stay.
        return { ...state, updatedAt: event.data.updatedAt };
      case 'conversations.MessagesDeleted': {
        let messages = state.messages;
        for (const id of event.data.messageIds) {
          const node = messages.get(id);
          if (node !== undefined) messages = messages.set(id, { ...node, deleted: true });
        }
        return { ...state, messages, currentMessageId: event.data.currentMessageId, updatedAt: event.data.deletedAt };
      }
      case 'conversations.BranchSummarised':
        return state;
      case 'conversations.CurrentMessageSelected':
        return { ...state, currentMessageId: event.data.messageId, updatedAt: event.data.selectedAt };
    }
  },
};

function appended(
  conversation: LiveConversation,
  command: Owner & MessageFields & { readonly messageId: string; readonly at: string },
  parentMessageId: string | null,
  editOf: string | null,
): ConversationEvent {
  return {
    type: 'conversations.MessageAppended',
    data: {
      conversationId: conversation.conversationId,
      messageId: command.messageId,
      parentMessageId,
      role: command.role,
      messageType: command.messageType,
      senderId: command.senderId,
      clientMessageId: command.clientMessageId,
      editOf,
      content: command.content,
      checksum: command.checksum,
      sentAt: command.sentAt,
      createdAt: command.at,
      // Said in the event, so the extraction reactor knows without reading the conversation.
      ...(command.role === 'user' && conversation.memoryExtraction === 'after_user_turn' ? { extractMemories: true as const } : {}),
    },
  };
}
