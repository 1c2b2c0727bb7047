import type { SealedFields } from '@lore/platform/crypto';
import type { ProjectionContext } from '@lore/platform/projections';
import type { ConversationEvent } from '@lore/conversations/domain';
import { openOrNull } from './conversation-content';

export const CONVERSATION_SUMMARIES = 'conversation_summaries';

/** A cached branch summary (context compaction), by the message it runs through. */
export interface ConversationSummaryDoc {
  readonly id: string;
  readonly conversation_id: string;
  readonly message_count: number;
  readonly summary: string;
  readonly model: string;
  readonly prompt_version: string;
  readonly created_at: string;
  readonly [field: string]: unknown;
}

/**
 * Branch summaries in the clear, like the messages they summarise in the conversations read
 * model; gone with any message they cover (a deletion takes the through-message's subtree) and
 * with the conversation. A summary whose key is already shredded (a rebuild after deletions) is
 * skipped. Part of the conversations projection (one commit per event for both read models).
 */
export async function projectBranchSummaries(event: ConversationEvent, context: ProjectionContext, summaries: SealedFields<string>): Promise<void> {
  switch (event.type) {
    case 'conversations.BranchSummarised': {
      const d = event.data;
      const summary = await openOrNull(summaries, d.throughMessageId, d.content);
      if (summary === null) return;
      const doc: ConversationSummaryDoc = {
        id: d.throughMessageId,
        conversation_id: d.conversationId,
        message_count: d.messageCount,
        summary,
        model: d.model,
        prompt_version: d.promptVersion,
        created_at: d.summarisedAt,
      };
      context.upsert(CONVERSATION_SUMMARIES, doc);
      return;
    }
    case 'conversations.MessagesDeleted':
      return; // removed with the messages, by the purge worker (message-purges.ts): a subtree may be tens of thousands
    case 'conversations.ConversationDeleted':
      context.deleteMany(CONVERSATION_SUMMARIES, { conversation_id: event.data.conversationId });
      return;
    case 'conversations.ConversationStarted':
    case 'conversations.ConversationUpdated':
    case 'conversations.MessageAppended':
    case 'conversations.MessageUpdated':
    case 'conversations.CurrentMessageSelected':
      return;
  }
}
