import { notFound, type ReplyIn, type ValidRequestIn } from '@lore/platform/kernel';
import { findWithout, workspaceCollection, type DocumentStore, type Filter, type WorkspaceDoc } from '@lore/platform/documents/port';
import type { VectorStore } from '@lore/platform/vectors/port';
import type { KnowledgeMessages, KnowledgeScope } from '@lore/knowledge/contracts';
import { mayAccess } from '@lore/knowledge/domain';
import { CHUNKS, COLLECTIONS, CONTENTS, type ChunkDoc, type CollectionDoc, type ContentDoc } from './knowledge.read-models';
import { toCollectionRecord } from './collection-docs';
import { toChunkRecord, toContentRecord } from './content-records';
import { accessOf } from './collection.commands';
import { PendingPurges, attemptPurgeId } from './chunk-purges';

/** The part of a filter that keeps a caller inside its key's collections (the workspace is `workspaceCollection`'s). */
function scopeFilter(scope: KnowledgeScope, collectionField: 'id' | 'collection_id'): Filter {
  return scope.collections === null ? {} : { [collectionField]: { $in: scope.collections } };
}

/** Reads of collections, contents and chunks, always within the caller's workspace (workspaceCollection) and key. */
export class KnowledgeQueries {
  private readonly purges: PendingPurges;

  constructor(
    private readonly documents: DocumentStore,
    private readonly vectors: VectorStore,
  ) {
    this.purges = new PendingPurges(documents);
  }

  private read<T extends WorkspaceDoc>(name: string, scope: KnowledgeScope) {
    return workspaceCollection<T>(this.documents, name, scope.workspaceId);
  }

  async getCollection(query: ValidRequestIn<KnowledgeMessages, 'getCollection'>): Promise<ReplyIn<KnowledgeMessages, 'getCollection'>> {
    return toCollectionRecord(await this.visibleCollection(query, query.collectionId));
  }

  async listCollections(query: ValidRequestIn<KnowledgeMessages, 'listCollections'>): Promise<ReplyIn<KnowledgeMessages, 'listCollections'>> {
    const conditions: Filter[] = [scopeFilter(query, 'id')];
    if (query.status !== undefined) conditions.push({ status: query.status });
    if (query.visibility !== undefined) conditions.push({ visibility: query.visibility });
    if (query.tags !== undefined && query.tags.length > 0) conditions.push({ tags: { $containsAll: query.tags } });
    if (query.search !== undefined) conditions.push({ $or: [{ name: { $icontains: query.search } }, { description: { $icontains: query.search } }] });
    const filter = Object.assign({}, ...conditions) as Filter;
    const collections = this.read<CollectionDoc>(COLLECTIONS, query);
    const [page, total] = await Promise.all([
      collections.find({ filter, sort: [['created_at', 'desc']], skip: query.skip, limit: query.limit }),
      collections.count(filter),
    ]);
    return { items: page.items.map(toCollectionRecord), total };
  }

  async getContent(query: ValidRequestIn<KnowledgeMessages, 'getContent'>): Promise<ReplyIn<KnowledgeMessages, 'getContent'>> {
    const doc = await this.read<ContentDoc>(CONTENTS, query).get(query.contentId);
    if (doc === null || !mayAccess(accessOf(query), { workspaceId: doc.workspace_id, collectionId: doc.collection_id })) throw notFound('Content');
    return toContentRecord(doc);
  }

  async listContents(query: ValidRequestIn<KnowledgeMessages, 'listContents'>): Promise<ReplyIn<KnowledgeMessages, 'listContents'>> {
    if (query.collectionId !== undefined) await this.visibleCollection(query, query.collectionId);
    const filter: Record<string, unknown> = { ...scopeFilter(query, 'collection_id') };
    if (query.collectionId !== undefined) filter['collection_id'] = query.collectionId;
    if (query.status !== undefined) filter['status'] = query.status;
    const contents = this.read<ContentDoc>(CONTENTS, query);
    const [page, total] = await Promise.all([
      contents.find({ filter: filter as Filter, sort: [[query.sortBy, query.sortOrder]], skip: query.skip, limit: query.limit }),
      contents.count(filter as Filter),
    ]);
    return { items: page.items.map(toContentRecord), total };
  }

  async getChunk(query: ValidRequestIn<KnowledgeMessages, 'getChunk'>): Promise<ReplyIn<KnowledgeMessages, 'getChunk'>> {
    const doc = await this.read<ChunkDoc>(CHUNKS, query).get(query.chunkId);
    if (doc === null || !mayAccess(accessOf(query), { workspaceId: doc.workspace_id, collectionId: doc.collection_id }) || (await this.purges.covers(doc))) throw notFound('Chunk');
    const [withEmbedding] = query.includeEmbedding ? await this.withEmbeddings([doc]) : [toChunkRecord(doc)];
    if (withEmbedding === undefined) throw notFound('Chunk');
    return withEmbedding;
  }

  /** Keyset pages in (content, position) order: stable while contents are added (ids grow with time). */
  async listChunks(query: ValidRequestIn<KnowledgeMessages, 'listChunks'>): Promise<ReplyIn<KnowledgeMessages, 'listChunks'>> {
    if (query.collectionId !== undefined) await this.visibleCollection(query, query.collectionId);
    const filter: Record<string, unknown> = { ...scopeFilter(query, 'collection_id') };
    if (query.collectionId !== undefined) filter['collection_id'] = query.collectionId;
    if (query.contentId !== undefined) filter['content_id'] = query.contentId;
    // A deleted content's chunks, or its earlier attempts', being purged: none, at once (not a walk through them in empty pages).
    if (query.contentId !== undefined && (await this.purges.pending([query.contentId, attemptPurgeId(query.contentId)]))) return { items: [], nextCursor: null };
    // Those being purged are dropped after reading, and the page read on to fill it.
    const page = await findWithout(
      this.read<ChunkDoc>(CHUNKS, query),
      { filter: filter as Filter, sort: [['content_id', 'asc'], ['chunk_index', 'asc']], limit: query.limit, ...(query.cursor === undefined ? {} : { cursor: query.cursor }) },
      (chunks) => this.purges.among(chunks),
    );
    const items = query.includeEmbedding ? await this.withEmbeddings(page.items) : page.items.map((d) => toChunkRecord(d));
    return { items, nextCursor: page.nextCursor };
  }

  async visibleCollection(scope: KnowledgeScope, collectionId: string): Promise<CollectionDoc> {
    const doc = await this.read<CollectionDoc>(COLLECTIONS, scope).get(collectionId);
    if (doc === null || !mayAccess(accessOf(scope), { workspaceId: doc.workspace_id, collectionId: doc.id })) throw notFound('Collection');
    return doc;
  }

  /** Vectors come from the collection's current index (one `get` per collection on the page). */
  private async withEmbeddings(chunks: readonly ChunkDoc[]): Promise<ReplyIn<KnowledgeMessages, 'getChunk'>[]> {
    const byCollection = new Map<string, ChunkDoc[]>();
    for (const chunk of chunks) byCollection.set(chunk.collection_id, [...(byCollection.get(chunk.collection_id) ?? []), chunk]);
    const vectors = new Map<string, number[]>();
    const known = new Set((await this.vectors.listIndexes()).map((i) => i.name));
    for (const [collectionId, members] of byCollection) {
      const collection = await this.documents.collection<CollectionDoc>(COLLECTIONS).get(collectionId);
      if (collection === null || !known.has(collection.model.index)) continue;
      for (const point of await this.vectors.index(collection.model.index).get(members.map((m) => m.id), { withVector: true })) {
        if (point.vector !== undefined) vectors.set(point.id, point.vector);
      }
    }
    return chunks.map((c) => toChunkRecord(c, vectors.get(c.id)));
  }
}
