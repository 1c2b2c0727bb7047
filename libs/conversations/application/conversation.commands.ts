import { AppError, invalid, newId, notFound, type Clock, type ReplyIn, type ValidRequestIn, type WorkspaceQuota } from '@lore/platform/kernel';
import type { EventStore } from '@lore/platform/event-store/port';
import { workspaceCollection, type DocumentStore } from '@lore/platform/documents/port';
import { AggregateStateCache, handleCommand, type ReadYourWrites } from '@lore/platform/cqrs';
import { outlastsWait, stillPurging } from '@lore/platform/projections';
import type { DataKey, Keyring } from '@lore/platform/crypto';
import type { ConversationMessages } from '@lore/conversations/contracts';
import {
  childrenOf,
  conversationDecider,
  conversationStreamId,
  messageOf,
  ownedConversation,
  subtree,
  upcastConversationEvent,
  type ConversationState,
  type LiveConversation,
} from '@lore/conversations/domain';
import { contentChecksum, type ConversationContent, type ConversationSeals, type MessageContent } from './conversation-content';
import { CONVERSATIONS, MESSAGES, type ConversationDoc, type MessageDoc } from './conversations.read-models';
import { CONVERSATION_ERASURE } from './conversation-erasure.reactor';
import { messageRecord } from './message-record';
import type { KnowledgeCollections } from './knowledge-collections';
import { RepeatedMessages, type NewMessage } from './repeated-messages';
import { PendingMessagePurges } from './message-purges';

/**
 * Appending is "add this message after that one" and deleting "make it gone": both are safe
 * to decide again on top of a concurrent write to the conversation (see the memory context's
 * measurement of the same backoff with 200 concurrent writers to one stream).
 */
const CONFLICT_RETRIES = 20;

type Owner = { readonly workspaceId: string; readonly userId: string; readonly actor: string };

export interface ConversationCommandDeps {
  readonly events: EventStore;
  readonly documents: DocumentStore;
  readonly keyring: Keyring;
  readonly seals: ConversationSeals;
  readonly readYourWrites: ReadYourWrites;
  readonly clock: Clock;
  readonly knowledge: KnowledgeCollections;
  /** Conversations a workspace may hold (QUOTA_CONVERSATIONS). */
  readonly quota: WorkspaceQuota;
  /** Resolves once these message purges (a deleted conversation's, a subtree's) are removed from the read models; rejects (unavailable) after `timeoutMs`. */
  readonly messagesPurged: (purgeIds: readonly string[], timeoutMs: number) => Promise<void>;
}

export class ConversationCommands {
  /** Folded conversations of this process: an append reads only the events after the cached revision. */
  private readonly aggregate = {
    name: 'conversation',
    decider: conversationDecider,
    upcast: upcastConversationEvent,
    cache: new AggregateStateCache<ConversationState>(),
  };

  private readonly repeated: RepeatedMessages;
  private readonly purges: PendingMessagePurges;

  constructor(private readonly deps: ConversationCommandDeps) {
    this.repeated = new RepeatedMessages(deps.seals.checksums);
    this.purges = new PendingMessagePurges(deps.documents);
  }

  async create(command: ValidRequestIn<ConversationMessages, 'create'>): Promise<ReplyIn<ConversationMessages, 'create'>> {
    // The quota first: a refusal should not cost a round trip per named collection.
    await this.deps.quota.enforce(command.workspaceId, () => this.deps.documents.collection(CONVERSATIONS).count({ workspace_id: command.workspaceId }));
    await this.deps.knowledge.checkVisible(command, command.collectionIds);
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
        memoryExtraction: command.memoryExtraction,
        content: this.deps.seals.conversations.seal(conversationId, content, key),
        at: now.toISOString(),
      },
      { newStream: true, metadata: metadata(command) },
    );
    await this.deps.readYourWrites.settle(result.position);
    return this.conversationDoc(conversationId);
  }

  async update(command: ValidRequestIn<ConversationMessages, 'update'>): Promise<ReplyIn<ConversationMessages, 'update'>> {
    if (command.collectionIds !== undefined) {
      // Another user's or a missing conversation is a 404 before a round trip per named
      // collection; the command checks ownership again on the stream itself.
      const doc = await this.conversationDoc(command.conversationId);
      if (doc.workspace_id !== command.workspaceId || doc.user_id !== command.userId) throw notFound('Conversation');
      await this.deps.knowledge.checkVisible(command, command.collectionIds);
    }
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
          ...(command.memoryExtraction === undefined ? {} : { memoryExtraction: command.memoryExtraction }),
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
  async delete(command: ValidRequestIn<ConversationMessages, 'delete'>): Promise<ReplyIn<ConversationMessages, 'delete'>> {
    const streamId = conversationStreamId(command.conversationId);
    const result = await handleCommand(
      this.deps.events,
      this.aggregate,
      streamId,
      { kind: 'delete', workspaceId: command.workspaceId, userId: command.userId, at: this.deps.clock.now().toISOString() },
      { retries: CONFLICT_RETRIES, metadata: metadata(command) },
    ).catch(stillPurging(() => this.purges.pendingFor(command)));
    const deletedMessages = result !== null && (result.previous.status === 'active' || result.previous.status === 'archived') ? countLive(result.previous) : 0;
    // Deleted before, erasure still pending (say, after a crash): wait for that deletion's erasure,
    // past the stream's last event as the command found it (no read of the whole conversation),
    // and for its messages' purge (the read models hold them in the clear). One that outlasts the
    // wait (a long conversation's messages) goes on by itself.
    const erased = async (): Promise<void> => {
      if (result !== null) await this.deps.readYourWrites.settleReactor(CONVERSATION_ERASURE, result.head);
      await this.deps.readYourWrites.settleWithin((timeoutMs) => this.deps.messagesPurged([command.conversationId], timeoutMs));
    };
    const erasing = await outlastsWait(erased());
    return { conversationId: command.conversationId, deletedMessages, ...(erasing ? { erasing } : {}) };
  }

  async append(command: ValidRequestIn<ConversationMessages, 'append'>): Promise<ReplyIn<ConversationMessages, 'append'>> {
    return this.writeMessage(command, {
      kind: 'append',
      parentMessageId: command.parentMessageId ?? null,
      role: command.role,
      messageType: command.messageType,
      senderId: command.senderId ?? command.userId,
      clientMessageId: command.clientMessageId ?? null,
      sentAt: command.sentAt ?? null,
      content: {
        content: command.content,
        checksum: checkedChecksum(command.content, command.checksum),
        tool_calls: command.toolCalls ?? [],
        attachments: command.attachments ?? [],
        tags: command.tags ?? [],
        meta_data: command.metaData ?? {},
      },
    });
  }

  /**
   * Content changes make an edited sibling (same parent, a new id, the active path moved to
   * it); tags, meta_data, tool_calls and attachments alone change the message in place.
   */
  async updateMessage(command: ValidRequestIn<ConversationMessages, 'updateMessage'>): Promise<ReplyIn<ConversationMessages, 'updateMessage'>> {
    const doc = await this.ownedMessageDoc(command);
    const content = command.content ?? doc.content;
    const next: MessageContent = {
      content,
      checksum: checkedChecksum(content, command.checksum),
      tool_calls: command.toolCalls ?? doc.tool_calls,
      attachments: command.attachments ?? doc.attachments,
      tags: command.tags ?? doc.tags,
      meta_data: command.metaData ?? doc.meta_data,
    };
    if (next.checksum !== doc.checksum) {
      return this.writeMessage(command, {
        kind: 'edit',
        conversationId: doc.conversation_id,
        editOf: doc.id,
        role: command.role ?? doc.role,
        messageType: command.messageType ?? doc.message_type,
        senderId: command.senderId ?? doc.sender_id,
        clientMessageId: command.clientMessageId ?? null,
        sentAt: command.sentAt ?? null,
        content: next,
      });
    }
    const onlyWithNewContent = (['role', 'messageType', 'senderId', 'sentAt', 'clientMessageId'] as const).filter((field) => command[field] !== undefined);
    if (onlyWithNewContent.length > 0) {
      throw new AppError(
        'validation',
        'These fields change only with new content (an edit)',
        onlyWithNewContent.map((field) => ({ loc: ['message', field], msg: 'Changes only with new content, which makes an edited copy', type: 'value_error' })),
      );
    }
    const unchanged = (['tool_calls', 'attachments', 'tags', 'meta_data'] as const).every((field) => JSON.stringify(next[field]) === JSON.stringify(doc[field]));
    if (unchanged) return { message: doc, created: false };
    const seals = this.deps.seals;
    const result = await handleCommand(
      this.deps.events,
      this.aggregate,
      conversationStreamId(doc.conversation_id),
      async (state) => {
        const node = messageOf(ownedConversation(state, command), command.messageId);
        return {
          kind: 'update-message' as const,
          workspaceId: command.workspaceId,
          userId: command.userId,
          messageId: command.messageId,
          content: seals.messages.seal(command.messageId, next, await seals.checksums.keyOf(node.checksum)),
          at: this.deps.clock.now().toISOString(),
        };
      },
      { retries: CONFLICT_RETRIES, metadata: metadata(command) },
    );
    await this.deps.readYourWrites.settle(result.position);
    return { message: await this.messageDoc(command.messageId), created: false };
  }

  /**
   * Permanent, with the replies below the message; answered once erased, the messages purged
   * from the read models included (202 when that outlasts the wait: a subtree of thousands).
   * Repeated while it runs, it waits again (202, or 200 when it ends within the wait).
   */
  async deleteMessage(command: ValidRequestIn<ConversationMessages, 'deleteMessage'>): Promise<ReplyIn<ConversationMessages, 'deleteMessage'>> {
    const doc = await workspaceCollection<MessageDoc>(this.deps.documents, MESSAGES, command.workspaceId).get(command.messageId);
    const owned = doc !== null && doc.owner_id === command.userId ? doc : null;
    // Its document removed, its purge not yet ended (its erasure or the WAL's truncation still to come): under way, not gone.
    const purging = owned === null ? await this.purges.subtreesOf(command, null) : [];
    if (owned === null && purging.length === 0) throw notFound('Message');
    const result =
      owned === null
        ? null
        : await handleCommand(
            this.deps.events,
            this.aggregate,
            conversationStreamId(owned.conversation_id),
            { kind: 'delete-message', workspaceId: command.workspaceId, userId: command.userId, messageId: command.messageId, at: this.deps.clock.now().toISOString() },
            { retries: CONFLICT_RETRIES, metadata: metadata(command) },
          );
    const deleted = result?.events[0];
    const deletedMessages = deleted?.type === 'conversations.MessagesDeleted' ? deleted.data.messageIds.length : 0;
    // Deleted before: its erasure, past the stream's last event as the command found it; then the
    // purge the message is in (recorded by then: the erasure waits for the read models; and it
    // ends after the erasure, so that with the document gone the purge alone is waited for).
    const erased = async (): Promise<void> => {
      if (result !== null) await this.deps.readYourWrites.settleReactor(CONVERSATION_ERASURE, result.head);
      await this.deps.readYourWrites.settleWithin(async (timeoutMs) => this.deps.messagesPurged(owned === null ? purging : await this.purges.subtreesOf(command, owned), timeoutMs));
    };
    const erasing = await outlastsWait(erased());
    return { messageId: command.messageId, deletedMessages, ...(erasing ? { erasing } : {}) };
  }

  /**
   * Appends a new message (or an edited copy of one) under a key of its own. A retry (the
   * same client id, or the same checksum, role and sender in the same place) appends nothing
   * and answers the message it repeats.
   */
  private async writeMessage(owner: Owner & { readonly conversationId?: string }, message: NewMessage): Promise<ReplyIn<ConversationMessages, 'append'>> {
    const now = this.deps.clock.now();
    const messageId = newId('msg', now.getTime());
    const conversationId = message.kind === 'edit' ? message.conversationId : (owner.conversationId ?? '');
    const seals = this.deps.seals;
    const key = seals.messages.pooledKey() ?? (await seals.messages.newKey());
    const sealed = { content: seals.messages.seal(messageId, message.content, key), checksum: seals.checksums.seal(messageId, message.content.checksum, key) };
    let duplicateOf: string | null = null;
    const result = await this.shredOnFailure(key, () =>
      handleCommand(
        this.deps.events,
        this.aggregate,
        conversationStreamId(conversationId),
        async (state) => {
          duplicateOf = await this.repeated.find(ownedConversation(state, owner), message);
          const fields = {
            workspaceId: owner.workspaceId,
            userId: owner.userId,
            messageId,
            role: message.role,
            messageType: message.messageType,
            senderId: message.senderId,
            clientMessageId: message.clientMessageId,
            content: sealed.content,
            checksum: sealed.checksum,
            duplicateOf,
            sentAt: message.sentAt ?? now.toISOString(),
            at: this.deps.clock.now().toISOString(),
          };
          return message.kind === 'edit' ? { ...fields, kind: 'edit' as const, editOf: message.editOf } : { ...fields, kind: 'append' as const, parentMessageId: message.parentMessageId };
        },
        { retries: CONFLICT_RETRIES, metadata: metadata(owner) },
      ),
    );
    const appended = result.events[0];
    if (appended?.type === 'conversations.MessageAppended' && result.position !== null) {
      this.repeated.remember(ownedConversation(result.state, owner), messageId, message.content.checksum);
      await this.deps.readYourWrites.settle(result.position);
      return { message: messageRecord(appended.data, message.content, owner), created: true };
    }
    // A retry of a write that happened. Nothing appended: the key taken for it sealed nothing
    // stored, and the next write takes it. (Anything else would be a decider's error: shredded.)
    if (result.events.length === 0) this.deps.keyring.putBack(key);
    else await this.deps.keyring.shred([key.keyId]);
    if (duplicateOf === null) throw new AppError('internal', 'a repeated message without the message it repeats');
    await this.deps.readYourWrites.settle(result.position ?? (await this.deps.events.headPosition()));
    return { message: await this.messageDoc(duplicateOf), created: false };
  }

  /**
   * A key taken for a write that then failed. A refusal (the conversation is not the caller's,
   * a limit, a conflict) stored nothing: the key goes back to the pool, and a caller sending
   * refused writes costs no keyring write. Any other failure may have come after the events
   * were stored (the store became unavailable while committing): the key is shredded rather
   * than seal a second message or stay an orphan in the keyring.
   */
  private async shredOnFailure<T>(key: DataKey, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      if (refusedBeforeStoring(error)) this.deps.keyring.putBack(key);
      else await this.deps.keyring.shred([key.keyId]);
      throw error;
    }
  }

  private async ownedMessageDoc(ref: { workspaceId: string; userId: string; messageId: string }): Promise<MessageDoc> {
    const doc = await workspaceCollection<MessageDoc>(this.deps.documents, MESSAGES, ref.workspaceId).get(ref.messageId);
    if (doc === null || doc.owner_id !== ref.userId || (await this.purges.hides(doc))) throw notFound('Message');
    return doc;
  }

  /**
   * Caches a branch summary (context compaction) as an event, sealed with the key of the message
   * it runs through (so that deleting any message it covers shreds it too).
   */
  async summarise(
    owner: Owner & { readonly conversationId: string },
    summary: { readonly throughMessageId: string; readonly messageCount: number; readonly text: string; readonly model: string; readonly promptVersion: string },
  ): Promise<void> {
    const result = await handleCommand(
      this.deps.events,
      this.aggregate,
      conversationStreamId(owner.conversationId),
      async (state) => {
        const node = messageOf(ownedConversation(state, owner), summary.throughMessageId);
        const key = await this.deps.seals.checksums.keyOf(node.checksum);
        const { text, ...rest } = summary;
        return { kind: 'summarise' as const, workspaceId: owner.workspaceId, userId: owner.userId, ...rest, content: this.deps.seals.summaries.seal(summary.throughMessageId, text, key), at: this.deps.clock.now().toISOString() };
      },
      { retries: CONFLICT_RETRIES, metadata: metadata(owner) },
    );
    await this.deps.readYourWrites.settle(result.position);
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
function checkedChecksum(content: string, sent: string | undefined): string {
  const checksum = contentChecksum(content);
  if (sent !== undefined && sent.toLowerCase() !== checksum) throw invalid(['message', 'checksum'], 'checksum is not the SHA-256 of content');
  return checksum;
}

/** Messages of every branch: the subtrees of the roots. */
function countLive(conversation: LiveConversation): number {
  return childrenOf(conversation, null).reduce((count, root) => count + subtree(conversation, root.messageId).length, 0);
}

/** The codes of a write's refusals: decided before anything was appended (a conflict included: the append it lost stored nothing). */
const REFUSALS: ReadonlySet<string> = new Set(['validation', 'failed_checks', 'unauthenticated', 'forbidden', 'not_found', 'conflict', 'too_large', 'rate_limited']);

function refusedBeforeStoring(error: unknown): boolean {
  return error instanceof AppError && REFUSALS.has(error.code);
}
