import type { Position } from '@lore/platform/kernel';
import type { DocumentStore, Filter } from '@lore/platform/documents/port';
import { batches } from '@lore/platform/embeddings/port';
import { keyedPurgePending, keyedPurgeWork, PurgeWorker, purgePosition, recordKeyedPurge, type KeyedPurge, type ProjectionContext, type PurgeDoc, type PurgeWorkerDeps } from '@lore/platform/projections';
import { MESSAGES } from './conversations.read-models';
import { CONVERSATION_SUMMARIES } from './conversation-summaries.projection';
import { conversationStreamId } from '@lore/conversations/domain';

/**
 * Deleted messages, waiting to be removed from the read models (see `PurgeWorker`): a deleted
 * conversation's, or a deleted message's with its replies (its subtree). They used to go inside
 * the projection's batch that applied the deletion: a conversation of 20,000 messages held it
 * for seconds, another workspace's append waited 4.4 s and the DELETE answered 503; a message
 * with 19,999 replies, 3.5 s (probes). Now the projection records a purge; a deleted
 * conversation is gone at once, so its own reads answer 404, and message lists and reads leave
 * the purged messages out (`PendingMessagePurges`) until the worker has removed them, then has
 * the engine forget them (WAL truncated). The erasure reactor does not wait for it (one long
 * conversation would hold every workspace's erasures back); the DELETE does, for both: the read
 * models hold the messages in the clear.
 */
export const MESSAGE_PURGES = 'message_purges';

export interface MessagePurgeDoc extends PurgeDoc {
  /** The conversation's owner: whose message list leaves its messages out meanwhile. */
  readonly owner_id: string;
  /** A subtree's conversation; absent for a whole conversation's purge, whose id is the conversation's. */
  readonly conversation_id?: string;
  /** A subtree's messages (a MessagesDeleted event's, as many as it names); absent for a whole conversation's. */
  readonly message_ids?: readonly string[];
}

/** A whole conversation's purge: its messages, by the conversation's id. */
const CONVERSATION_PURGE: KeyedPurge = { records: MESSAGE_PURGES, collection: MESSAGES, key: 'conversation_id', order: 'created_at' };
/** Pending purges a message list's total leaves out, at most: an owner deleting more at once sees a total counting the rest's messages until they are gone. */
const LISTED_PURGES = 1_000;
/** Ids in one `$in` (SQLite binds each as a parameter). */
const ID_LIST = 1_000;

export function recordMessagePurge(context: ProjectionContext, d: { readonly conversationId: string; readonly workspaceId: string; readonly userId: string }, position: Position): void {
  recordKeyedPurge(context, CONVERSATION_PURGE, { id: d.conversationId, workspaceId: d.workspaceId, ownerId: d.userId }, position);
}

/** A subtree's purge, named by its first message (the one deleted; a message is deleted once). */
const subtreePurgeId = (messageId: string): string => `subtree:${messageId}`;

export function recordSubtreePurge(
  context: ProjectionContext,
  d: { readonly conversationId: string; readonly messageIds: readonly string[]; readonly workspaceId: string; readonly userId: string },
  position: Position,
): void {
  const [first] = d.messageIds;
  if (first === undefined) return;
  context.upsert(MESSAGE_PURGES, {
    id: subtreePurgeId(first),
    workspace_id: d.workspaceId,
    owner_id: d.userId,
    conversation_id: d.conversationId,
    message_ids: d.messageIds,
    position: purgePosition(position),
  } satisfies MessagePurgeDoc);
}

/** What message reads leave out while purges are pending. */
export class PendingMessagePurges {
  constructor(private readonly documents: DocumentStore) {}

  private get records() {
    return this.documents.collection<MessagePurgeDoc>(MESSAGE_PURGES);
  }

  /** The purges pending among one owner's messages (up to LISTED_PURGES), or among one conversation's. */
  async inScope(scope: { readonly workspaceId: string; readonly ownerId: string; readonly conversationId?: string }): Promise<MessagePurgeDoc[]> {
    // One conversation's: its subtrees', and its own whole purge (deleted since the caller found it).
    const filter: Filter =
      scope.conversationId === undefined ? { workspace_id: scope.workspaceId, owner_id: scope.ownerId } : { $or: [{ conversation_id: scope.conversationId }, { id: scope.conversationId }] };
    return (await this.records.find({ filter, limit: LISTED_PURGES })).items;
  }

  /** How many of the messages a filter selects these purges (`inScope`) hold: a message list's total leaves them out. */
  async counted(messages: { count(filter: Filter): Promise<number> }, filter: Filter, purges: readonly MessagePurgeDoc[]): Promise<number> {
    const conversations = purges.filter((purge) => purge.message_ids === undefined).map((purge) => purge.id);
    const whole = new Set(conversations);
    // A subtree of a conversation being purged is counted with it.
    const subtrees = purges.flatMap((purge) => (purge.message_ids === undefined || whole.has(purge.conversation_id ?? '') ? [] : batches(purge.message_ids, ID_LIST)));
    const counts = await Promise.all([
      conversations.length === 0 ? 0 : messages.count({ ...filter, conversation_id: { $in: conversations } }),
      ...subtrees.map((ids) => messages.count({ ...filter, id: { $in: ids } })),
    ]);
    return counts.reduce((sum, n) => sum + n, 0);
  }

  /** Of these messages, which are being purged (their conversation's, or their subtree's). */
  async among(messages: readonly MessageRef[]): Promise<(message: MessageRef) => boolean> {
    if (messages.length === 0) return () => false;
    const conversations = [...new Set(messages.map((message) => message.conversation_id))];
    const [whole, subtrees] = await Promise.all([this.records.find({ filter: { id: { $in: conversations } } }), this.records.find({ filter: { conversation_id: { $in: conversations } } })]);
    const purgedConversations = new Set(whole.items.map((purge) => purge.id));
    const purgedMessages = new Set(subtrees.items.flatMap((purge) => purge.message_ids ?? []));
    return (message) => purgedConversations.has(message.conversation_id) || purgedMessages.has(message.id);
  }

  /** Whether this message is being purged. */
  async hides(message: MessageRef): Promise<boolean> {
    return (await this.among([message]))(message);
  }

  /**
   * The pending subtree purges this message is in, none once removed: what its repeated DELETE
   * waits for. Once its document is gone (a page removed it; the purge's end is still to come),
   * among its owner's purges (another owner learns nothing of them).
   */
  async subtreesOf(ref: { readonly messageId: string; readonly workspaceId: string; readonly userId: string }, doc: MessageRef | null): Promise<string[]> {
    const found = doc === null ? await this.inScope({ workspaceId: ref.workspaceId, ownerId: ref.userId }) : (await this.records.find({ filter: { conversation_id: doc.conversation_id } })).items;
    return found.filter((purge) => purge.message_ids?.includes(ref.messageId) === true).map((purge) => purge.id);
  }

  /** Whether this owner's conversation is being purged (another's, or another workspace's, is not: a 404 to them). */
  async pendingFor(ref: { readonly conversationId: string; readonly workspaceId: string; readonly userId: string }): Promise<boolean> {
    // A subtree's purge has an id of its own (`subtree:`), never a conversation's.
    return keyedPurgePending(this.documents, CONVERSATION_PURGE, { id: ref.conversationId, workspaceId: ref.workspaceId, ownerId: ref.userId });
  }
}

type MessageRef = { readonly id: string; readonly conversation_id: string };

/** The stream whose erasure a message purge follows: the conversation's, for a subtree too (its erasure shreds part of that stream). */
export function purgedConversationStream(purge: MessagePurgeDoc): string {
  return conversationStreamId(purge.conversation_id ?? purge.id);
}

export class MessagePurgeWorker extends PurgeWorker<MessagePurgeDoc> {
  constructor(deps: Omit<PurgeWorkerDeps<MessagePurgeDoc>, 'records' | 'kind' | 'removePage' | 'afterPages'>) {
    // Each subtree purge being removed: its ids in the order they go, and how many went. Oldest
    // first (ids are time-ordered, as the engine's rows are): a full-text index that removes
    // terms for good (FTS5's secure-delete) took ~165 ms a page of 100 newest first, ~11 ms
    // oldest first (a throwaway measurement, 20,000 messages). A run passes the same record to
    // every page; a run after a failure or a restart starts again (removing is idempotent).
    const runs = new WeakMap<MessagePurgeDoc, { readonly order: readonly string[]; gone: number }>();
    // A whole conversation's: its messages by the conversation's id (and the engine made to forget them after).
    const whole = keyedPurgeWork(deps.documents, CONVERSATION_PURGE);
    super({
      ...deps,
      ...whole,
      kind: 'messages',
      removePage: async (purge, limit) => {
        if (purge.message_ids !== undefined) {
          const run = runs.get(purge) ?? { order: [...purge.message_ids].sort(), gone: 0 };
          runs.set(purge, run);
          const ids = run.order.slice(run.gone, run.gone + limit);
          // With their branch summaries (each keyed by the message it runs through).
          if (ids.length > 0) await deps.documents.write(ids.flatMap((id) => [MESSAGES, CONVERSATION_SUMMARIES].map((collection) => ({ collection, op: 'delete' as const, id }))));
          run.gone += ids.length;
          return ids.length;
        }
        return whole.removePage(purge, limit);
      },
    });
  }
}
