import type { Position } from '@lore/platform/kernel';
import type { DocumentStore } from '@lore/platform/documents/port';
import { PurgeWorker, purgePosition, type ProjectionContext, type PurgeDoc, type PurgeWorkerDeps } from '@lore/platform/projections';
import { MESSAGES } from './conversations.read-models';

/**
 * A deleted conversation's messages, waiting to be removed from the read models (see
 * `PurgeWorker`). They used to go inside the projection's batch that applied the deletion: a
 * conversation of 20,000 messages held it for seconds, another workspace's append waited 4.4 s
 * and the DELETE answered 503 (a probe). Now the projection records a purge; the conversation
 * is gone at once, so its own reads answer 404, and the message list and message reads leave
 * its messages out (`PendingMessagePurges`) until the worker has removed them, then has the
 * engine forget them (WAL truncated). The erasure reactor does not wait for it (one long
 * conversation would hold every workspace's erasures back); the DELETE does, for both: the read
 * models hold the messages in the clear.
 */
export const MESSAGE_PURGES = 'message_purges';

export interface MessagePurgeDoc extends PurgeDoc {
  /** The conversation's owner: whose message list leaves its messages out meanwhile. */
  readonly owner_id: string;
}

/** Messages removed a transaction (documents with their indexes and full-text terms). */
const PAGE = 100;
/** Pending purges a message list's total leaves out, at most: an owner deleting more at once sees a total counting the rest's messages until they are gone. */
const LISTED_PURGES = 1_000;

export function recordMessagePurge(context: ProjectionContext, d: { readonly conversationId: string; readonly workspaceId: string; readonly userId: string }, position: Position): void {
  context.upsert(MESSAGE_PURGES, { id: d.conversationId, workspace_id: d.workspaceId, owner_id: d.userId, position: purgePosition(position) } satisfies MessagePurgeDoc);
}

/** What message reads leave out while purges are pending. */
export class PendingMessagePurges {
  constructor(private readonly documents: DocumentStore) {}

  /** The conversations of this owner whose messages are being purged (up to LISTED_PURGES). */
  async ofOwner(workspaceId: string, ownerId: string): Promise<string[]> {
    const found = await this.documents.collection<MessagePurgeDoc>(MESSAGE_PURGES).find({ filter: { workspace_id: workspaceId, owner_id: ownerId }, limit: LISTED_PURGES });
    return found.items.map((purge) => purge.id);
  }

  /** Of these messages, which are being purged (their conversation's). */
  async among(messages: readonly { readonly conversation_id: string }[]): Promise<(message: { readonly conversation_id: string }) => boolean> {
    if (messages.length === 0) return () => false;
    const ids = [...new Set(messages.map((message) => message.conversation_id))];
    const found = await this.documents.collection<MessagePurgeDoc>(MESSAGE_PURGES).find({ filter: { id: { $in: ids } } });
    const purged = new Set(found.items.map((purge) => purge.id));
    return (message) => purged.has(message.conversation_id);
  }

  /** Whether this owner's conversation is being purged (another's, or another workspace's, is not: a 404 to them). */
  async pendingFor(ref: { readonly conversationId: string; readonly workspaceId: string; readonly userId: string }): Promise<boolean> {
    const purge = await this.documents.collection<MessagePurgeDoc>(MESSAGE_PURGES).get(ref.conversationId);
    return purge !== null && purge.workspace_id === ref.workspaceId && purge.owner_id === ref.userId;
  }

  async pending(conversationId: string): Promise<boolean> {
    return (await this.documents.collection<MessagePurgeDoc>(MESSAGE_PURGES).get(conversationId)) !== null;
  }
}

export class MessagePurgeWorker extends PurgeWorker<MessagePurgeDoc> {
  constructor(deps: Omit<PurgeWorkerDeps<MessagePurgeDoc>, 'records' | 'kind' | 'removePage' | 'afterPages'>) {
    super({
      ...deps,
      records: MESSAGE_PURGES,
      kind: 'messages',
      removePage: async (purge) => {
        const page = await deps.documents.collection(MESSAGES).find({ filter: { conversation_id: purge.id }, sort: [['conversation_id', 'asc'], ['created_at', 'asc']], limit: PAGE });
        if (page.items.length > 0) await deps.documents.write(page.items.map((message) => ({ collection: MESSAGES, op: 'delete' as const, id: message.id })));
        return page.items.length;
      },
      // The erasure's own purge of the engine's files may have run before this one ended.
      afterPages: () => deps.documents.purgeDeleted(),
    });
  }
}
