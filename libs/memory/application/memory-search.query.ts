import { positionFromString, unavailable, type Clock, type ReplyIn, type ValidRequestIn, type VectorFilter } from '@lore/platform/kernel';
import { RerankStep, type Rerankers } from '@lore/platform/rerank/port';
import { workspaceCollection, type DocumentStore } from '@lore/platform/documents/port';
import type { EmbeddingModels, EmbeddingProvider } from '@lore/platform/embeddings/port';
import type { EventStore } from '@lore/platform/event-store/port';
import type { VectorStore } from '@lore/platform/vectors/port';
import type { ReadYourWrites } from '@lore/platform/cqrs';
import type { SealedFields } from '@lore/platform/crypto';
import type { MemoryMessages } from '@lore/memory/contracts';
import { liveMemoryFilter, MEMORIES, type MemoryDoc } from './memory.read-models';
import { toMemoryRecord, type MemoryContent } from './memory-content';
import { MEMORY_SEARCH_INDEX, memoryIndexName, memoryPartition } from './memory-search-index.reactor';
import { MEMORY_SEARCH_POSITIONS, type MemorySearchPositionDoc } from './memory-search-positions.projection';
import { indexOwnPendingWrites, unlessUnavailable } from './memory-search-catch-up';
import type { MemoryIndexWrites } from './memory-index-writes';

/**
 * Hybrid search over one user's memories (their own partition of the index: no other user's
 * memory can be a candidate). The index has the caller's own latest write before the search
 * reads it (`memorySearchPositionsProjection`, and `indexed` below), so a memory written just
 * before is found; other users' and workspaces' writes the index has yet to take in never hold
 * a search up. Nothing waits when the index has already passed it (a user without memories
 * never waits).
 */
export class MemorySearch {
  constructor(
    private readonly deps: {
      readonly documents: DocumentStore;
      readonly events: EventStore;
      readonly vectors: VectorStore;
      readonly embeddings: EmbeddingModels;
      readonly rerankers: Rerankers;
      readonly sealed: SealedFields<MemoryContent>;
      readonly readYourWrites: ReadYourWrites;
      readonly indexWrites: MemoryIndexWrites;
      readonly clock: Clock;
    },
  ) {}

  async search(request: ValidRequestIn<MemoryMessages, 'search'>): Promise<ReplyIn<MemoryMessages, 'search'>> {
    const started = performance.now();
    const rerank = request.rerank == null ? null : RerankStep.plan(this.deps.rerankers, request.rerank, request.limit);
    // With a rerank step, its candidates are read and re-ranked; without, the page asked for.
    const wanted = rerank?.candidates ?? request.limit;
    const provider = this.deps.embeddings.get(this.deps.embeddings.defaultModel);
    if (provider === null) throw unavailable('no embedding model is configured');
    const partition = memoryPartition(request.workspaceId, request.userId);
    const [vector] = await Promise.all([provider.embedQuery(request.query), this.indexed(partition, provider)]);
    const index = memoryIndexName(provider);
    if (!(await this.deps.vectors.listIndexes()).some((i) => i.name === index)) return { results: [], executionTimeMs: elapsed(started), rerank: null };
    const conditions: VectorFilter[] = [];
    if (request.memoryType !== undefined) conditions.push({ source: request.memoryType });
    if (request.topics !== undefined && request.topics.length > 0) conditions.push({ tags: { $containsAll: request.topics } });
    const hits = await this.deps.vectors.index(index).searchHybrid({
      collections: [partition],
      vector,
      text: request.query,
      // Expired memories are filtered below (they stay in the index until the sweep erases them): ask for a few more.
      limit: Math.min(wanted + OVERFETCH, Math.max(wanted, 200)),
      ...(conditions.length === 0 ? {} : { filter: { $and: conditions } }),
    });
    const docs = await workspaceCollection<MemoryDoc>(this.deps.documents, MEMORIES, request.workspaceId).find({
      filter: { ...liveMemoryFilter(this.deps.clock.now()), id: { $in: hits.map((h) => h.id) } },
    });
    const byId = new Map(docs.items.map((d) => [d.id, d]));
    const results: ReplyIn<MemoryMessages, 'search'>['results'] = [];
    for (const hit of hits) {
      const doc = byId.get(hit.id);
      // Deleted between the index and the read model, superseded or expired: gone, and never another user's.
      if (doc === undefined || doc.user_id !== request.userId) continue;
      if (results.length === wanted) break;
      results.push({ memory: toMemoryRecord(doc, await this.deps.sealed.open(doc.id, doc.content)), score: hit.score, scores: { vector: hit.legs.vector, keyword: hit.legs.keyword } });
    }
    if (rerank === null) return { results, executionTimeMs: elapsed(started), rerank: null };
    const { ranked, outcome } = await rerank.apply(request.query, results.map((hit, i) => ({ hit, rank: i + 1 })), ({ hit }) => hit.memory.memory);
    const reranked = ranked.map(({ hit: { hit, rank }, rerank: mark }) => (mark === null ? hit : { ...hit, score: mark.score, scores: { ...hit.scores, retrieval: { score: hit.score, rank }, rerank: mark } }));
    return { results: reranked, executionTimeMs: elapsed(started), rerank: outcome };
  }

  /**
   * Resolves once the index has the partition's latest memory event: at once when the index has
   * passed it; after a short wait when the index is about to; otherwise once the search has
   * indexed the caller's pending writes itself (`indexOwnPendingWrites`: the index's reactor is
   * behind other workspaces' writes); failing that, after the full wait (bounded, then 503).
   */
  private async indexed(partition: string, provider: EmbeddingProvider): Promise<void> {
    const latest = await this.deps.documents.collection<MemorySearchPositionDoc>(MEMORY_SEARCH_POSITIONS).get(partition);
    // None: the partition never had a memory (or, just after an upgrade, the projection has yet to reach it).
    if (latest === null) return;
    const position = positionFromString(latest.position);
    const soon = await unlessUnavailable(this.deps.readYourWrites.settleReactor(MEMORY_SEARCH_INDEX, position, BRIEF_WAIT_MS));
    if (soon || (await indexOwnPendingWrites(this.deps, provider, latest))) return;
    await this.deps.readYourWrites.settleReactor(MEMORY_SEARCH_INDEX, position);
  }
}

/** How long a search waits for the index's reactor before it indexes its caller's pending writes itself. */
const BRIEF_WAIT_MS = 250;

/** Hits asked for beyond the limit, to make up for expired memories not yet erased. */
const OVERFETCH = 10;

function elapsed(started: number): number {
  return Math.round((performance.now() - started) * 100) / 100;
}
