import { AppError, invalid, newId, notFound, type Clock, type ReplyOf, type ValidRequestOf } from '@lore/platform/kernel';
import type { EventStore } from '@lore/platform/event-store/port';
import type { DocumentStore } from '@lore/platform/documents/port';
import type { Transport } from '@lore/platform/transport/port';
import { send } from '@lore/platform/transport/port';
import { AggregateStateCache, handleCommand, type ReadYourWrites } from '@lore/platform/cqrs';
import type { Keyring } from '@lore/platform/crypto';
import { knowledgeMessages, type KnowledgeConfig, type KnowledgeMessages } from '@lore/knowledge/contracts';
import type { ConversationMessages } from '@lore/conversations/contracts';
import {
  childrenOf,
  conversationDecider,
  conversationStreamId,
  liveMessage,
  ownedConversation,
  upcastConversationEvent,
  type ConversationState,
  type LiveConversation,
  type MessageNode,
} from '@lore/conversations/domain';
import { contentChecksum, type ConversationContent, type ConversationSeals, type MessageContent } from './conversation-content';
import { CONVERSATIONS, MESSAGES, type ConversationDoc, type MessageDoc } from './conversations.read-models';
import { CONVERSATION_ERASURE } from './conversation-erasure.reactor';
import { messageRecord } from './message-record';

/**
 * Appending is "add this message after that one" and deleting "make it gone": both are safe
 * to decide again on top of a concurrent write to the conversation (see the memory context's
 * measurement of the same backoff with 200 concurrent writers to one stream).
 */
const CONFLICT_RETRIES = 20;

type Request<K extends keyof ConversationMessages> = ValidRequestOf<ConversationMessages[K]>;
type Reply<K extends keyof ConversationMessages> = ReplyOf<ConversationMessages[K]>;
type Owner = { readonly workspaceId: string; readonly userId: string; readonly actor: string };

export interface ConversationCommandDeps {
  readonly events: EventStore;
  readonly documents: DocumentStore;
  readonly keyring: Keyring;
  readonly seals: ConversationSeals;
  readonly transport: Transport;
  readonly readYourWrites: ReadYourWrites;
  readonly clock: Clock;
  readonly knowledgeConfig: KnowledgeConfig;
}

export class ConversationCommands {
  /** Folded conversations of this process: an append reads only the events after the cached revision. */
  private readonly aggregate = {
    name: 'conversation',
    decider: conversationDecider,
    upcast: upcastConversationEvent,
    cache: new AggregateStateCache<ConversationState>(),
  };

  /** Built once: a message set's schemas are not free to construct. */
  private readonly knowledge: KnowledgeMessages;

  constructor(private readonly deps: ConversationCommandDeps) {
    this.knowledge = knowledgeMessages(deps.knowledgeConfig);
  }

  async create(command: Request<'create'>): Promise<Reply<'create'>> {
    await this.checkCollections(command, command.collectionIds);
    const now = this.deps.clock.now();
    const conversationId = newId('conv', now.getTime());
    const content: ConversationContent = { title: command.title ?? null, tags: command.tags, metadata: command.metadata };
    const key = await this.deps.seals.conversations.newKey();
    const result = await handleCommand(
      this.deps.events,
      this.aggregate,
      conversationStreamId(conversationId),
      {
        kind: 'start',
        conversationId,
        workspaceId: command.workspaceId,
        userId: command.userId,
        createdBy: command.actor,
        status: command.status,
        collectionIds: [...new Set(command.collectionIds)],
        content: this.deps.seals.conversations.seal(conversationId, content, key),
        at: now.toISOString(),
      },
      { newStream: true, metadata: metadata(command) },
    );
    await this.deps.readYourWrites.settle(result.position);
    return this.conversationDoc(conversationId);
  }

  async update(command: Request<'update'>): Promise<Reply<'update'>> {
    if (command.collectionIds !== undefined) await this.checkCollections(command, command.collectionIds);
    const changesContent = command.title !== undefined || command.tags !== undefined || command.metadata !== undefined;
    const result = await handleCommand(
      this.deps.events,
      this.aggregate,
      conversationStreamId(command.conversationId),
      async (state) => {
        const conversation = ownedConversation(state, command);
        let content: string | undefined;
        if (changesContent) {
          const seal = this.deps.seals.conversations;
          const old = await seal.open(conversation.conversationId, conversation.content);
          const next: ConversationContent = {
            title: command.title === undefined ? old.title : command.title,
            tags: command.tags ?? old.tags,
            metadata: command.metadata ?? old.metadata,
          };
          content = seal.seal(conversation.conversationId, next, await seal.keyOf(conversation.content));
        }
        return {
          kind: 'update' as const,
          workspaceId: command.workspaceId,
          userId: command.userId,
          ...(content === undefined ? {} : { content }),
          ...(command.collectionIds === undefined ? {} : { collectionIds: [...new Set(command.collectionIds)] }),
          ...(command.status === undefined ? {} : { status: command.status }),
          ...(command.currentMessageId === undefined ? {} : { currentMessageId: command.currentMessageId }),
          at: this.deps.clock.now().toISOString(),
        };
      },
      { retries: CONFLICT_RETRIES, metadata: metadata(command) },
    );
    await this.deps.readYourWrites.settle(result.position);
    return this.conversationDoc(command.conversationId);
  }

  /** Answered once the conversation and its messages are erased (the reactor's work, so it survives a crash). */
  async delete(command: Request<'delete'>): Promise<Reply<'delete'>> {
    const streamId = conversationStreamId(command.conversationId);
    const result = await handleCommand(
      this.deps.events,
      this.aggregate,
      streamId,
      { kind: 'delete', workspaceId: command.workspaceId, userId: command.userId, at: this.deps.clock.now().toISOString() },
      { retries: CONFLICT_RETRIES, metadata: metadata(command) },
    );
    const deletedMessages = result.previous.status === 'active' || result.previous.status === 'archived' ? countLive(result.previous) : 0;
    // Deleted before, erasure still pending (say, after a crash): wait for that deletion's erasure.
    const position = result.position ?? (await this.deps.events.readStream(streamId)).at(-1)?.position ?? null;
    await this.deps.readYourWrites.settleReactor(CONVERSATION_ERASURE, position);
    return { conversationId: command.conversationId, deletedMessages };
  }

  async append(command: Request<'append'>): Promise<Reply<'append'>> {
    const checksum = checkedChecksum(command.content, command.checksum, 'body');
    const now = this.deps.clock.now();
    const messageId = newId('msg', now.getTime());
    const senderId = command.senderId ?? command.userId;
    const key = await this.deps.seals.messages.newKey();
    const content: MessageContent = {
      content: command.content,
      checksum,
      tool_calls: command.toolCalls ?? [],
      attachments: command.attachments ?? [],
      tags: command.tags ?? [],
      meta_data: command.metaData ?? {},
    };
    const sealed = this.deps.seals.messages.seal(messageId, content, key);
    let duplicateOf: string | null = null;
    const result = await this.shredOnFailure(key.keyId, () => handleCommand(
      this.deps.events,
      this.aggregate,
      conversationStreamId(command.conversationId),
      async (state) => {
        const conversation = ownedConversation(state, command);
        const parent = command.parentMessageId ?? null;
        duplicateOf = await this.findDuplicate(conversation, { parent, role: command.role, senderId, checksum, clientMessageId: command.clientMessageId ?? null });
        return {
          kind: 'append' as const,
          workspaceId: command.workspaceId,
          userId: command.userId,
          messageId,
          parentMessageId: parent,
          duplicateOf,
          role: command.role,
          messageType: command.messageType,
          senderId,
          clientMessageId: command.clientMessageId ?? null,
          content: sealed,
          sentAt: command.sentAt ?? now.toISOString(),
          at: this.deps.clock.now().toISOString(),
        };
      },
      { retries: CONFLICT_RETRIES, metadata: metadata(command) },
    ));
    const appended = result.events[0];
    if (result.position !== null && appended?.type === 'conversations.MessageAppended') {
      await this.deps.readYourWrites.settle(result.position);
      return { message: messageRecord(appended.data, content, command), created: true };
    }
    // A retry of an append that happened: the key made for it seals nothing.
    await this.deps.keyring.shred([key.keyId]);
    const existing = duplicateOf ?? this.byClientId(result.state, command.clientMessageId);
    await this.deps.readYourWrites.settle(await this.deps.events.headPosition());
    return { message: await this.messageDoc(existing), created: false };
  }

  /**
   * Content changes make an edited sibling (same parent, a new id, the active path moved to
   * it); tags, meta_data, tool_calls and attachments alone change the message in place.
   */
  async updateMessage(command: Request<'updateMessage'>): Promise<Reply<'updateMessage'>> {
    const doc = await this.ownedMessageDoc(command);
    const seal = this.deps.seals.messages;
    const edits = command.content !== undefined && contentChecksum(command.content) !== doc.checksum;
    const content = command.content ?? doc.content;
    const checksum = checkedChecksum(content, command.checksum, 'body');
    const next: MessageContent = {
      content,
      checksum,
      tool_calls: command.toolCalls ?? doc.tool_calls,
      attachments: command.attachments ?? doc.attachments,
      tags: command.tags ?? doc.tags,
      meta_data: command.metaData ?? doc.meta_data,
    };
    const streamId = conversationStreamId(doc.conversation_id);
    const options = { retries: CONFLICT_RETRIES, metadata: metadata(command) };
    if (!edits) {
      const result = await handleCommand(this.deps.events, this.aggregate, streamId, async (state) => {
        const node = messageIn(ownedConversation(state, command), command.messageId);
        return {
          kind: 'update-message' as const,
          workspaceId: command.workspaceId,
          userId: command.userId,
          messageId: command.messageId,
          content: seal.seal(command.messageId, next, await seal.keyOf(node.content)),
          at: this.deps.clock.now().toISOString(),
        };
      }, options);
      await this.deps.readYourWrites.settle(result.position);
      return { message: await this.messageDoc(command.messageId), created: false };
    }
    const now = this.deps.clock.now();
    const messageId = newId('msg', now.getTime());
    const key = await seal.newKey();
    const result = await this.shredOnFailure(key.keyId, () => handleCommand(
      this.deps.events,
      this.aggregate,
      streamId,
      {
        kind: 'edit',
        workspaceId: command.workspaceId,
        userId: command.userId,
        editOf: command.messageId,
        messageId,
        role: command.role ?? doc.role,
        messageType: command.messageType ?? doc.message_type,
        senderId: command.senderId ?? doc.sender_id,
        clientMessageId: command.clientMessageId ?? null,
        content: seal.seal(messageId, next, key),
        sentAt: command.sentAt ?? now.toISOString(),
        at: now.toISOString(),
      },
      options,
    ));
    const appended = result.events[0];
    if (result.position === null || appended?.type !== 'conversations.MessageAppended') {
      await this.deps.keyring.shred([key.keyId]);
      return { message: await this.messageDoc(this.byClientId(result.state, command.clientMessageId)), created: false };
    }
    await this.deps.readYourWrites.settle(result.position);
    return { message: messageRecord(appended.data, next, command), created: true };
  }

  /** Permanent, with the replies below the message; answered once erased. */
  async deleteMessage(command: Request<'deleteMessage'>): Promise<Reply<'deleteMessage'>> {
    const doc = await this.ownedMessageDoc(command);
    const streamId = conversationStreamId(doc.conversation_id);
    const result = await handleCommand(
      this.deps.events,
      this.aggregate,
      streamId,
      { kind: 'delete-message', workspaceId: command.workspaceId, userId: command.userId, messageId: command.messageId, at: this.deps.clock.now().toISOString() },
      { retries: CONFLICT_RETRIES, metadata: metadata(command) },
    );
    const deleted = result.events[0];
    const deletedMessages = deleted?.type === 'conversations.MessagesDeleted' ? deleted.data.messageIds.length : 0;
    const position = result.position ?? (await this.deps.events.readStream(streamId)).at(-1)?.position ?? null;
    await this.deps.readYourWrites.settleReactor(CONVERSATION_ERASURE, position);
    return { messageId: command.messageId, deletedMessages };
  }

  /**
   * The message a retried append repeats, if any: the one with the client's id, or one with
   * the same checksum, role and sender under the same parent. Without an explicit parent the
   * append continues the active path, so a retry whose first attempt got through finds it
   * at the end of that path. Only the candidates' sealed checksums are opened.
   */
  private async findDuplicate(
    conversation: LiveConversation,
    message: { parent: string | null; role: string; senderId: string; checksum: string; clientMessageId: string | null },
  ): Promise<string | null> {
    if (message.clientMessageId !== null) {
      const id = conversation.clientIds.get(message.clientMessageId);
      if (id === undefined) return null;
      const node = liveMessage(conversation, id);
      if (node === null) return null;
      const existing = await this.deps.seals.messages.open(id, node.content);
      if (existing.checksum !== message.checksum) {
        throw new AppError('conflict', `client_message_id ${message.clientMessageId} was already used for a different message in this conversation`);
      }
      return id;
    }
    const resolvedParent = message.parent ?? conversation.currentMessageId;
    const candidates: MessageNode[] = childrenOf(conversation, resolvedParent);
    if (message.parent === null && conversation.currentMessageId !== null) {
      const current = liveMessage(conversation, conversation.currentMessageId);
      if (current !== null) candidates.push(current);
    }
    for (const node of candidates) {
      if (node.role !== message.role || node.senderId !== message.senderId || node.clientMessageId !== null) continue;
      const existing = await this.deps.seals.messages.open(node.messageId, node.content);
      if (existing.checksum === message.checksum) return node.messageId;
    }
    return null;
  }

  /** A key made for a write that then failed seals nothing: shred it rather than keep an orphan in the keyring. */
  private async shredOnFailure<T>(keyId: string, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      await this.deps.keyring.shred([keyId]);
      throw error;
    }
  }

  private byClientId(state: ConversationState, clientMessageId: string | undefined): string {
    const id = clientMessageId === undefined || (state.status !== 'active' && state.status !== 'archived') ? undefined : state.clientIds.get(clientMessageId);
    if (id === undefined) throw new Error('a duplicate append without the message it repeats');
    return id;
  }

  /** Collections a conversation searches must exist and be visible to the caller (its API key's scope). */
  private async checkCollections(scope: { workspaceId: string; actor: string; collections: readonly string[] | null }, collectionIds: readonly string[]): Promise<void> {
    if (collectionIds.length === 0) return;
    const messages = this.knowledge;
    await Promise.all(
      collectionIds.map(async (collectionId, index) => {
        try {
          await send(this.deps.transport, messages.getCollection, {
            workspaceId: scope.workspaceId,
            actor: scope.actor,
            collections: scope.collections === null ? null : [...scope.collections],
            collectionId,
          });
        } catch (error) {
          if (error instanceof AppError && error.code === 'not_found') throw invalid(['body', 'collection_ids', index], `Collection ${collectionId} not found`);
          throw error;
        }
      }),
    );
  }

  private async ownedMessageDoc(ref: { workspaceId: string; userId: string; messageId: string }): Promise<MessageDoc> {
    const doc = await this.deps.documents.collection<MessageDoc>(MESSAGES).get(ref.messageId);
    if (doc === null || doc.workspace_id !== ref.workspaceId || doc.owner_id !== ref.userId) throw notFound('Message');
    return doc;
  }

  private async conversationDoc(conversationId: string): Promise<ConversationDoc> {
    const doc = await this.deps.documents.collection<ConversationDoc>(CONVERSATIONS).get(conversationId);
    if (doc === null) throw notFound('Conversation');
    return doc;
  }

  private async messageDoc(messageId: string): Promise<MessageDoc> {
    const doc = await this.deps.documents.collection<MessageDoc>(MESSAGES).get(messageId);
    if (doc === null) throw notFound('Message');
    return doc;
  }
}

function metadata(owner: Owner) {
  return { actor: owner.actor, workspaceId: owner.workspaceId, userId: owner.userId };
}

/** Lore computes the checksum; one the client sent must be the same (else 422 naming it). */
function checkedChecksum(content: string, sent: string | undefined, location: 'body'): string {
  const checksum = contentChecksum(content);
  if (sent !== undefined && sent.toLowerCase() !== checksum) throw invalid([location, 'checksum'], 'checksum is not the SHA-256 of content');
  return checksum;
}

function messageIn(conversation: LiveConversation, messageId: string): MessageNode {
  const node = liveMessage(conversation, messageId);
  if (node === null) throw notFound('Message');
  return node;
}

function countLive(conversation: LiveConversation): number {
  let count = 0;
  const stack = [...childrenOf(conversation, null)];
  while (stack.length > 0) {
    const node = stack.pop() as MessageNode;
    count++;
    stack.push(...childrenOf(conversation, node.messageId));
  }
  return count;
}

