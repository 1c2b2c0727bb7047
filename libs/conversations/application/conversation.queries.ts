import { notFound, type Clock, type ReplyIn, type ValidRequestIn } from '@lore/platform/kernel';
import { findWithout, workspaceCollection, type DocumentStore, type Filter } from '@lore/platform/documents/port';
import type { ConversationMessages } from '@lore/conversations/contracts';
import { CONVERSATIONS, MESSAGES, type ConversationDoc, type MessageDoc } from './conversations.read-models';
import { exportMarkdown } from './conversation-export';
import { PendingMessagePurges } from './message-purges';

export class ConversationQueries {
  private readonly purges: PendingMessagePurges;

  constructor(
    private readonly documents: DocumentStore,
    private readonly clock: Clock,
  ) {
    this.purges = new PendingMessagePurges(documents);
  }

  private conversations(workspaceId: string) {
    return workspaceCollection<ConversationDoc>(this.documents, CONVERSATIONS, workspaceId);
  }

  private messages(workspaceId: string) {
    return workspaceCollection<MessageDoc>(this.documents, MESSAGES, workspaceId);
  }

  /** Another workspace's or another user's conversation is indistinguishable from a missing one. */
  async get(ref: ValidRequestIn<ConversationMessages, 'get'>): Promise<ReplyIn<ConversationMessages, 'get'>> {
    const doc = await this.conversations(ref.workspaceId).get(ref.conversationId);
    if (doc === null || doc.user_id !== ref.userId) throw notFound('Conversation');
    return doc;
  }

  async list(query: ValidRequestIn<ConversationMessages, 'list'>): Promise<ReplyIn<ConversationMessages, 'list'>> {
    const filter: Filter = {
      user_id: query.userId,
      ...(query.status === undefined ? {} : { status: query.status }),
      ...(query.collectionId === undefined ? {} : { collection_ids: { $contains: query.collectionId } }),
      ...(query.search === undefined ? {} : { title: { $icontains: query.search } }),
    };
    const page = await this.conversations(query.workspaceId).find({
      filter,
      sort: [[query.sortBy, query.sortOrder]],
      limit: query.limit,
      ...(query.cursor === undefined ? {} : { cursor: query.cursor }),
    });
    return { items: page.items, nextCursor: page.nextCursor };
  }

  async getMessage(ref: ValidRequestIn<ConversationMessages, 'getMessage'>): Promise<ReplyIn<ConversationMessages, 'getMessage'>> {
    const doc = await this.messages(ref.workspaceId).get(ref.messageId);
    if (doc === null || doc.owner_id !== ref.userId || (await this.purges.hides(doc))) throw notFound('Message');
    return doc;
  }

  /** The caller's messages across its conversations (SPEC §4.7), filtered, searched by words, paged. */
  async listMessages(query: ValidRequestIn<ConversationMessages, 'listMessages'>): Promise<ReplyIn<ConversationMessages, 'listMessages'>> {
    // Within one conversation, checked to be the caller's, its id alone selects (and its index serves).
    if (query.conversationId !== undefined) await this.get({ ...query, conversationId: query.conversationId });
    const filter: Filter = {
      ...(query.conversationId === undefined ? { owner_id: query.userId } : { conversation_id: query.conversationId }),
      ...(query.senderId === undefined ? {} : { sender_id: query.senderId }),
      ...(query.role === undefined ? {} : { role: query.role }),
      ...(query.messageType === undefined ? {} : { message_type: query.messageType }),
      ...(query.tags === undefined || query.tags.length === 0 ? {} : { tags: { $containsAll: query.tags } }),
      ...(query.search === undefined ? {} : { $text: query.search }),
    };
    const messages = this.messages(query.workspaceId);
    // Deleted messages being purged (a deleted conversation's, a deleted message's subtree) are
    // left out: dropped after reading (a filter of them would change under a paging cursor) and
    // from the total. With none pending, the engine's own offset serves.
    const pending = await this.purges.inScope({ workspaceId: query.workspaceId, ownerId: query.userId, ...(query.conversationId === undefined ? {} : { conversationId: query.conversationId }) });
    const find = { filter, sort: [[query.sortBy, query.sortOrder]] as const, limit: query.limit, ...(query.cursor ? { cursor: query.cursor } : { skip: query.skip }) };
    const [total, hidden, page] = await Promise.all([
      messages.count(filter),
      this.purges.counted(messages, filter, pending),
      pending.length === 0 ? messages.find(find) : findWithout(messages, find, (read) => this.purges.among(read)),
    ]);
    return { items: page.items, total: total - hidden, nextCursor: page.nextCursor };
  }

  /** The active path (root → current message), the path to a given leaf, or every branch. */
  async conversationMessages(query: ValidRequestIn<ConversationMessages, 'conversationMessages'>): Promise<ReplyIn<ConversationMessages, 'conversationMessages'>> {
    const conversation = await this.get(query);
    const all = await this.allMessages(conversation);
    let items: MessageDoc[];
    if (query.includeBranches) items = all;
    else {
      const leaf = query.leafId ?? conversation.current_message_id;
      if (query.leafId !== undefined && !all.some((m) => m.id === query.leafId)) throw notFound('Message');
      items = pathTo(all, leaf);
    }
    return { items: items.slice(query.skip, query.skip + query.limit), total: items.length, currentMessageId: conversation.current_message_id };
  }

  async export(query: ValidRequestIn<ConversationMessages, 'export'>): Promise<ReplyIn<ConversationMessages, 'export'>> {
    const conversation = await this.get(query);
    const messages = await this.allMessages(conversation);
    const activePath = pathTo(messages, conversation.current_message_id);
    const exportedAt = this.clock.now().toISOString();
    return {
      conversation,
      messages,
      activePath: activePath.map((m) => m.id),
      exportedAt,
      markdown: query.format === 'markdown' ? exportMarkdown(conversation, activePath, messages.length, exportedAt) : null,
    };
  }

  /** Oldest first; ids are time-ordered, so they break ties in creation order. Deleted ones being purged are left out. */
  async allMessages(conversation: Pick<ConversationDoc, 'id' | 'workspace_id'>): Promise<MessageDoc[]> {
    const all = (await this.messages(conversation.workspace_id).find({ filter: { conversation_id: conversation.id }, sort: [['created_at', 'asc']] })).items;
    const purged = await this.purges.among(all);
    return all.filter((message) => !purged(message));
  }
}

/** The messages from the root to `leafId`, in order (empty for null). */
export function pathTo<M extends { readonly id: string; readonly parent_message_id: string | null }>(messages: readonly M[], leafId: string | null): M[] {
  const byId = new Map(messages.map((m) => [m.id, m]));
  const path: M[] = [];
  for (let id = leafId; id !== null; ) {
    const message = byId.get(id);
    if (message === undefined) break;
    path.push(message);
    id = message.parent_message_id;
  }
  return path.reverse();
}
