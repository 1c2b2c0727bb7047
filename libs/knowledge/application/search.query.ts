import { effectiveRerank, RerankOptionsInput, type RerankOutcome, type ReplyOf, type ValidRequestOf } from '@lore/platform/kernel';
import { RerankStep, type Rerankers } from '@lore/platform/rerank/port';
import type { DocumentStore } from '@lore/platform/documents/port';
import type { EmbeddingModels } from '@lore/platform/embeddings/port';
import { MAX_CANDIDATES, type HybridHit, type PointHit, type VectorStore } from '@lore/platform/vectors/port';
import type { KnowledgeMessages, SearchResult } from '@lore/knowledge/contracts';
import { CONTENTS, type ContentDoc } from './knowledge.read-models';
import type { KnowledgeQueries } from './knowledge.queries';
import { providerOf } from './embedding-choice';
import { PendingPurges } from './chunk-purges';

type Request = ValidRequestOf<KnowledgeMessages['search']>;
type Reply = ReplyOf<KnowledgeMessages['search']>;

/**
 * `POST /collections/search`: one collection, one of three retrievers, the same filter on
 * both legs of a hybrid search before fusion. Scores: vector = cosine similarity, keyword =
 * BM25, hybrid = the fusion's (default weighted_score); every hit says how each leg scored it.
 */
export class KnowledgeSearch {
  /** Indexes known to exist: an index is created with a collection's first chunks. */
  private readonly ready = new Set<string>();
  private readonly purges: PendingPurges;

  constructor(
    private readonly deps: {
      readonly documents: DocumentStore;
      readonly vectors: VectorStore;
      readonly embeddings: EmbeddingModels;
      readonly rerankers: Rerankers;
      readonly queries: KnowledgeQueries;
    },
  ) {
    this.purges = new PendingPurges(deps.documents);
  }

  async search(request: Request): Promise<Reply> {
    const started = performance.now();
    const collection = await this.deps.queries.visibleCollection(request, request.collectionId);
    // Checked against the grammar when the request was parsed (VectorFilterInput).
    const filter = request.filters ?? undefined;
    const model = collection.model;
    const scope = { collections: [collection.id], ...(filter === undefined ? {} : { filter }) };
    // Re-ranking reads `candidates` retrieval hits and keeps `top_n` (checked before retrieval: a bad provider is a 422, not a wasted search).
    const rerankOptions = effectiveRerank(request.rerank, collectionDefault(collection.settings));
    const rerank = rerankOptions === null ? null : RerankStep.plan(this.deps.rerankers, rerankOptions, request.maxResults);
    const limit = rerank?.candidates ?? request.maxResults;
    const empty = (): Reply => this.reply([], started, null);
    const vectorOf = async (): Promise<Float32Array> => providerOf(this.deps.embeddings, model).embedQuery(request.query);

    let hits: readonly (PointHit | HybridHit)[];
    const index = this.deps.vectors.index(model.index);
    switch (request.searchType) {
      case 'keyword':
        if (!(await this.hasIndex(model))) return empty();
        hits = await this.liveHits(collection.id, limit, (wanted) => index.searchKeyword({ ...scope, text: request.query, limit: wanted }));
        break;
      case 'vector': {
        const vector = await vectorOf();
        if (!(await this.hasIndex(model))) return empty();
        hits = await this.liveHits(collection.id, limit, (wanted) => index.searchVector({ ...scope, vector, limit: wanted }));
        break;
      }
      case 'hybrid': {
        const vector = await vectorOf();
        if (!(await this.hasIndex(model))) return empty();
        const fusion = request.fusion ?? undefined;
        hits = await this.liveHits(collection.id, limit, (wanted) => index.searchHybrid({ ...scope, vector, text: request.query, limit: wanted, ...(fusion === undefined ? {} : { fusion }) }));
        break;
      }
    }
    const names = await this.contentNames(hits.map((h) => h.payload.content_id));
    const results = hits.map((hit) => toResult(hit, request.searchType, names));
    if (rerank === null) return this.reply(results, started, null);
    const { ranked, outcome } = await rerank.apply(request.query, results.map((r, i) => ({ r, rank: i + 1 })), ({ r }) => r.content);
    const reranked = ranked.map(({ hit: { r, rank }, rerank: mark }): SearchResult => (mark === null ? r : { ...r, score: mark.score, scores: { ...r.scores, retrieval: { score: r.score, rank }, rerank: mark } }));
    return this.reply(reranked, started, outcome);
  }

  /**
   * The top `limit` hits without the points of deleted contents the purge worker has not removed
   * yet: dropped after the search (a filter of them would grow with the pending purges), the
   * search widened fourfold while that left it short (up to MAX_CANDIDATES). Ranks are renumbered.
   */
  private async liveHits<H extends PointHit>(collectionId: string, limit: number, search: (wanted: number) => Promise<readonly H[]>): Promise<readonly H[]> {
    const chunkOf = (hit: H) => ({ content_id: hit.payload.content_id, collection_id: collectionId });
    for (let wanted = limit; ; wanted = Math.min(wanted * 4, MAX_CANDIDATES)) {
      const hits = await search(wanted);
      const purged = await this.purges.among(hits.map(chunkOf));
      const live = hits.filter((hit) => !purged(chunkOf(hit)));
      if (live.length === hits.length) return wanted === limit ? hits : hits.slice(0, limit);
      if (live.length >= limit || hits.length < wanted || wanted === MAX_CANDIDATES) return live.slice(0, limit).map((hit, i) => ({ ...hit, rank: i + 1 }));
    }
  }

  private reply(results: SearchResult[], started: number, rerank: RerankOutcome | null): Reply {
    return { results, executionTimeMs: Math.round((performance.now() - started) * 100) / 100, rerank };
  }

  private async hasIndex(model: { readonly index: string }): Promise<boolean> {
    const name = model.index;
    if (this.ready.has(name)) return true;
    const exists = (await this.deps.vectors.listIndexes()).some((i) => i.name === name);
    if (exists) this.ready.add(name);
    return exists;
  }

  private async contentNames(ids: readonly string[]): Promise<Map<string, string>> {
    const distinct = [...new Set(ids)];
    if (distinct.length === 0) return new Map();
    const page = await this.deps.documents.collection<ContentDoc>(CONTENTS).find({ filter: { id: { $in: distinct } } });
    return new Map(page.items.map((c) => [c.id, c.name]));
  }
}

function toResult(hit: PointHit | HybridHit, searchType: Request['searchType'], names: ReadonlyMap<string, string>): SearchResult {
  const own = { score: hit.score, rank: hit.rank };
  const scores =
    'legs' in hit
      ? { vector: hit.legs.vector, keyword: hit.legs.keyword }
      : searchType === 'vector'
        ? { vector: own, keyword: null }
        : { vector: null, keyword: own };
  return {
    content: hit.text,
    score: hit.score,
    metadata: hit.payload.metadata,
    content_id: hit.payload.content_id,
    source: hit.payload.source,
    chunk_id: hit.id,
    chunk_index: hit.payload.chunk_index,
    content_name: names.get(hit.payload.content_id) ?? null,
    scores,
  };
}

/** A collection's `settings.rerank`, as stored (checked when set; a value that no longer parses is ignored, not fatal to search). */
function collectionDefault(settings: Readonly<Record<string, unknown>> | undefined): ReturnType<typeof RerankOptionsInput.parse> | null {
  const parsed = RerankOptionsInput.nullish().safeParse(settings?.['rerank']);
  return parsed.success ? (parsed.data ?? null) : null;
}
