import { AppError, type ReplyIn, type RerankOutcome, type ValidRequestIn } from '@lore/platform/kernel';
import { send, type Transport } from '@lore/platform/transport/port';
import type { EmbeddingModels } from '@lore/platform/embeddings/port';
import type { ConversationMessages } from '@lore/conversations/contracts';
import type { SearchResult } from '@lore/knowledge/contracts';
import { memoryMessages, type MemorySearchHit } from '@lore/memory/contracts';
import type { ConversationsServiceConfig } from './conversations-service.config';
import { pathTo, type ConversationQueries } from './conversation.queries';
import { fitToBudget } from './context-budget';
import { ContextTokenizers } from './context-tokenizer';
import type { ContextCompaction } from './context-compaction';
import type { KnowledgeCollections } from './knowledge-collections';

const HEADINGS = { memories: '## What you remember about the user', chunks: '## Relevant passages', messages: '## Conversation so far' } as const;

/**
 * The context for an assistant's next turn in one call: the end of the active path, the
 * user's memories closest to the query (or to the last user message), and the best passages
 * of the conversation's collections (hybrid search, within the caller's API-key scope),
 * trimmed to `max_tokens` as the embedding model's tokenizer counts them, plus the same as one
 * prompt-ready string. A source that cannot be searched is named in `warnings`, not fatal.
 */
export class ConversationContextQuery {
  /** Built once: a message set's schemas are not free to construct. */
  private readonly memorySearch;
  private readonly tokenizers: ContextTokenizers;

  constructor(
    private readonly deps: {
      readonly transport: Transport;
      readonly embeddings: EmbeddingModels;
      readonly queries: ConversationQueries;
      readonly knowledge: KnowledgeCollections;
      readonly config: ConversationsServiceConfig;
      readonly compaction: ContextCompaction;
    },
  ) {
    this.memorySearch = memoryMessages(deps.config.memory.limits).search;
    this.tokenizers = new ContextTokenizers(deps.embeddings);
  }

  async context(request: ValidRequestIn<ConversationMessages, 'context'>): Promise<ReplyIn<ConversationMessages, 'context'>> {
    const started = performance.now();
    const defaults = this.deps.config.context;
    const maxTokens = request.maxTokens ?? defaults.maxTokens;
    const conversation = await this.deps.queries.get(request);
    const path = pathTo(await this.deps.queries.allMessages(conversation), conversation.current_message_id);
    const messageLimit = request.messageLimit ?? defaults.messageLimit;
    const recent = (messageLimit === 0 ? [] : path.slice(-messageLimit)).reverse();
    const query = request.query ?? [...path].reverse().find((m) => m.role === 'user')?.content ?? path.at(-1)?.content ?? null;
    const warnings: string[] = [];
    const allowed = (source: 'memories' | 'collections', limit: number): number => {
      if (request.sources[source] || limit === 0) return limit;
      warnings.push(`${source === 'memories' ? 'memories' : 'passages'} not searched: the API key lacks ${source}:read`);
      return 0;
    };
    const timings = { messages_ms: since(started), memories_ms: 0, chunks_ms: 0, tokens_ms: 0 };
    const [memories, chunks] = await Promise.all([
      timedInto(timings, 'memories_ms', () => this.memories(request, conversation.user_id, query, allowed('memories', request.memoryLimit ?? defaults.memoryLimit), warnings)),
      timedInto(timings, 'chunks_ms', () => this.chunks(request, conversation.collection_ids, query, allowed('collections', request.chunkLimit ?? defaults.chunkLimit), warnings)),
    ]);
    const counting = performance.now();

    const lines = {
      messages: recent.map((m) => `${m.role}: ${m.content}`),
      memories: memories.map((m) => `- ${m.memory.memory}`),
      chunks: chunks.map((c, i) => `[${i + 1}] ${c.content_name ?? c.source ?? c.content_id} (score ${c.score.toFixed(3)})\n${c.content}`),
    };
    const tokenizer = await this.tokenizers.tokenizer();
    // One batch for every candidate: each call is a round trip to the model's thread.
    const counts = await tokenizer.count([...lines.messages, ...lines.memories, ...lines.chunks, ...Object.values(HEADINGS)]);
    const messageTokens = counts.slice(0, lines.messages.length);
    const memoryTokens = counts.slice(lines.messages.length, lines.messages.length + lines.memories.length);
    const chunkTokens = counts.slice(lines.messages.length + lines.memories.length, lines.messages.length + lines.memories.length + lines.chunks.length);
    const headingTokens = counts.slice(lines.messages.length + lines.memories.length + lines.chunks.length);
    const headings = headingTokens.reduce((a, b) => a + b, 0);
    const fitted = fitToBudget({
      budget: Math.max(0, maxTokens - headings),
      messages: recent.map((m, i) => ({ m, line: lines.messages[i] ?? '', tokens: messageTokens[i] ?? 0 })),
      memories: memories.map((m, i) => ({ m, line: lines.memories[i] ?? '', tokens: memoryTokens[i] ?? 0 })),
      chunks: chunks.map((c, i) => ({ c, line: lines.chunks[i] ?? '', tokens: chunkTokens[i] ?? 0 })),
    });
    // Lines counted one by one add up to the whole with the model's tokenizer; the estimate
    // (no model) also counts the joins, so drop what is least needed until the whole fits.
    let context = assemble(fitted);
    let [totalTokens = 0] = await tokenizer.count([context]);
    while (totalTokens > maxTokens && dropLeastNeeded(fitted)) {
      context = assemble(fitted);
      [totalTokens = 0] = await tokenizer.count([context]);
    }
    // Opt-in: the older messages that did not fit, summarised (cached per branch), when the summary fits what is left.
    let summary: ReplyIn<ConversationMessages, 'context'>['summary'] = null;
    if (request.compact) {
      const older = path.slice(0, path.length - fitted.messages.length);
      const branch = await this.deps.compaction.summarise({ ...request, conversationId: conversation.id }, older, warnings);
      if (branch !== null) {
        const compacted = withSummary(context, `${SUMMARY_HEADING}\n${branch.text}`);
        const [compactedTokens = 0, summaryTokens = 0] = await tokenizer.count([compacted, branch.text]);
        if (compactedTokens <= maxTokens) {
          context = compacted;
          totalTokens = compactedTokens;
          summary = { through_message_id: branch.throughMessageId, message_count: branch.messageCount, text: branch.text, model: branch.model, cached: branch.cached, tokens: summaryTokens };
        } else warnings.push(`older messages summarised, but the summary (${summaryTokens} tokens) does not fit in max_tokens`);
      }
    }
    timings.tokens_ms = since(counting);

    return {
      conversation_id: conversation.id,
      query,
      max_tokens: maxTokens,
      total_tokens: totalTokens,
      messages: fitted.messages.map(({ m, tokens }) => ({ id: m.id, role: m.role, sender_id: m.sender_id, content: m.content, created_at: m.created_at, tokens })),
      memories: fitted.memories.map(({ m, tokens }) => ({ memory_id: m.memory.memory_id, memory: m.memory.memory, topics: m.memory.topics, score: m.score, rerank: m.scores.rerank ?? null, source: 'memory' as const, tokens })),
      chunks: fitted.chunks.map(({ c, tokens }) => ({
        chunk_id: c.chunk_id,
        content: c.content,
        score: c.score,
        rerank: c.scores.rerank ?? null,
        collection_id: c.collection_id,
        content_id: c.content_id,
        content_name: c.content_name,
        source: c.source,
        metadata: c.metadata,
        tokens,
      })),
      omitted: { messages: recent.length - fitted.messages.length, memories: memories.length - fitted.memories.length, chunks: chunks.length - fitted.chunks.length },
      warnings,
      summary,
      context,
      tokenizer: { model: tokenizer.model, exact: tokenizer.exact },
      timings,
      execution_time_ms: since(started),
    };
  }

  private async memories(scope: ValidRequestIn<ConversationMessages, 'context'>, userId: string, query: string | null, limit: number, warnings: string[]): Promise<MemorySearchHit[]> {
    if (query === null || limit === 0) return [];
    try {
      const reply = await send(this.deps.transport, this.memorySearch, {
        workspaceId: scope.workspaceId,
        userId,
        actor: scope.actor,
        query: query.slice(0, 10_000),
        limit,
        // Memories have no collection default: only the request's own options re-rank them.
        rerank: scope.rerank === false ? null : (scope.rerank ?? null),
      });
      noteSkippedRerank(reply.rerank, 'memories', warnings);
      return reply.results;
    } catch (error) {
      if (isRerankFailure(error)) throw error;
      warnings.push(`memories not searched: ${reason(error)}`);
      return [];
    }
  }

  private async chunks(scope: ValidRequestIn<ConversationMessages, 'context'>, collectionIds: readonly string[], query: string | null, limit: number, warnings: string[]): Promise<Array<SearchResult & { collection_id: string }>> {
    if (query === null || limit === 0 || collectionIds.length === 0) return [];
    const found = await Promise.all(
      collectionIds.map(async (collectionId) => {
        if (scope.collections !== null && !scope.collections.includes(collectionId)) {
          warnings.push(`collection ${collectionId} not searched: outside the API key's collections`);
          return [];
        }
        try {
          const { results, rerank } = await this.deps.knowledge.search(scope, collectionId, query.slice(0, 10_000), limit, scope.rerank);
          noteSkippedRerank(rerank, `collection ${collectionId}`, warnings);
          return results.map((r) => ({ ...r, collection_id: collectionId }));
        } catch (error) {
          if (isRerankFailure(error)) throw error;
          warnings.push(`collection ${collectionId} not searched: ${reason(error)}`);
          return [];
        }
      }),
    );
    return found.flat().sort((a, b) => b.score - a.score).slice(0, limit);
  }
}

interface Fitted {
  messages: Array<{ readonly line: string }>;
  memories: Array<{ readonly line: string }>;
  chunks: Array<{ readonly line: string }>;
}

const SUMMARY_HEADING = '## Earlier in the conversation (summary)';

/** The summary goes right before the recent messages it leads up to. */
function withSummary(context: string, section: string): string {
  const at = context.indexOf(HEADINGS.messages);
  if (at === -1) return context === '' ? section : `${context}\n\n${section}`;
  return `${context.slice(0, at)}${section}\n\n${context.slice(at)}`;
}

/** The prompt-ready text: memories, passages, then the conversation. */
function assemble(fitted: Fitted): string {
  const sections: string[] = [];
  if (fitted.memories.length > 0) sections.push([HEADINGS.memories, ...fitted.memories.map((m) => m.line)].join('\n'));
  if (fitted.chunks.length > 0) sections.push([HEADINGS.chunks, ...fitted.chunks.map((c) => c.line)].join('\n\n'));
  if (fitted.messages.length > 0) sections.push([HEADINGS.messages, ...fitted.messages.map((m) => m.line)].join('\n'));
  return sections.join('\n\n');
}

/** Drops the oldest message while more than the newest is left, else the weakest passage, memory, the last message. */
function dropLeastNeeded(fitted: Fitted): boolean {
  if (fitted.messages.length > 1) fitted.messages.shift();
  else if (fitted.chunks.length > 0) fitted.chunks.pop();
  else if (fitted.memories.length > 0) fitted.memories.pop();
  else if (fitted.messages.length > 0) fitted.messages.pop();
  else return false;
  return true;
}

function since(start: number): number {
  return Math.round((performance.now() - start) * 100) / 100;
}

async function timedInto<K extends string, T>(timings: Record<K, number>, key: K, work: () => Promise<T>): Promise<T> {
  const start = performance.now();
  try {
    return await work();
  } finally {
    timings[key] = since(start);
  }
}

/** A reranker that failed with `on_error: "fail"` fails the context too (502/504), as it fails a search. */
function isRerankFailure(error: unknown): boolean {
  return error instanceof AppError && (error.code === 'bad_gateway' || error.code === 'gateway_timeout');
}

/** `on_error: "skip"`: the source is in retrieval order, and the reply says why. */
function noteSkippedRerank(outcome: RerankOutcome | null, source: string, warnings: string[]): void {
  if (outcome !== null && !outcome.applied) warnings.push(`${source} not re-ranked: ${outcome.error ?? 'the reranker failed'}`);
}

function reason(error: unknown): string {
  if (error instanceof AppError) return error.code === 'not_found' ? 'not found' : error.message;
  return 'unavailable';
}

