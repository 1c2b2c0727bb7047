import { z } from 'zod';
import type { DocumentStore } from '@lore/platform/documents/port';
import type { ChatModel } from '@lore/platform/chat/port';
import { AppError } from '@lore/platform/kernel';
import type { ConversationCommands } from './conversation.commands';
import type { MessageDoc } from './conversations.read-models';
import { CONVERSATION_SUMMARIES, type ConversationSummaryDoc } from './conversation-summaries.projection';

/** Bump with any change of the prompt or the schema: a cached summary records the version that wrote it. */
export const SUMMARY_PROMPT_VERSION = 'context-summary/v1';

const Summary = z.object({ summary: z.string().min(1) });
const summaryOutput = {
  name: 'conversation_summary',
  jsonSchema: { type: 'object', properties: { summary: { type: 'string' } }, required: ['summary'], additionalProperties: false },
  schema: Summary,
};

const SYSTEM = [
  'Summarise the earlier part of a conversation between a user and an assistant, for the assistant to continue it.',
  'Keep what later turns may need: facts the user gave, decisions, open questions, names, numbers. Leave out pleasantries.',
  'Write plain prose of at most 200 words, in the language of the conversation.',
].join('\n');

export interface BranchSummary {
  readonly throughMessageId: string;
  readonly messageCount: number;
  readonly text: string;
  readonly model: string;
  readonly cached: boolean;
}

/**
 * Context compaction: the messages of the active path that did not fit the budget, summarised
 * by the chat model once per branch (the summary "through" a message serves every later turn
 * whose path runs through it) and cached as a `conversations.BranchSummarised` event.
 */
export class ContextCompaction {
  constructor(
    private readonly deps: {
      readonly chat: ChatModel | null;
      readonly documents: DocumentStore;
      readonly commands: ConversationCommands;
    },
  ) {}

  /** Null (with a warning) when there is no model or it failed: the context is still answered, uncompacted. */
  async summarise(owner: { workspaceId: string; userId: string; actor: string; conversationId: string }, older: readonly MessageDoc[], warnings: string[]): Promise<BranchSummary | null> {
    const through = older.at(-1);
    if (through === undefined) return null;
    const cached = await this.deps.documents.collection<ConversationSummaryDoc>(CONVERSATION_SUMMARIES).get(through.id);
    if (cached !== null && cached.conversation_id === owner.conversationId && cached.prompt_version === SUMMARY_PROMPT_VERSION) {
      return { throughMessageId: through.id, messageCount: cached.message_count, text: cached.summary, model: cached.model, cached: true };
    }
    if (this.deps.chat === null) {
      warnings.push('older messages not summarised: no chat model is configured (CHAT_OPENAI_BASE_URL)');
      return null;
    }
    try {
      const transcript = older.map((m) => `${m.role}: ${m.content}`).join('\n\n');
      const answer = await this.deps.chat.complete({ messages: [{ role: 'system', content: SYSTEM }, { role: 'user', content: transcript }], output: summaryOutput });
      const summary = { throughMessageId: through.id, messageCount: older.length, text: answer.value.summary.trim(), model: answer.model };
      await this.deps.commands.summarise(owner, { ...summary, promptVersion: SUMMARY_PROMPT_VERSION });
      return { ...summary, cached: false };
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      warnings.push(`older messages not summarised: ${error.message}`);
      return null;
    }
  }
}
