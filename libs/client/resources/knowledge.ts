import { unwrap, type LoreHttp } from '../core/http';
import { LoreProcessingError } from '../core/errors';
import { cursorItems, offsetItems } from '../core/pagination';
import type { BodyOf, Filters, QueryOf, ReplyOf, Schemas } from '../core/types';

export type Collection = Schemas['CollectionRecord'];
export type Content = Schemas['ContentRecord'];
export type Chunk = Schemas['ChunkRecord'];
export type SearchResponse = Schemas['SearchResponse'];

/** Collections of knowledge, and search over their chunks (`/api/v1/collections`). */
export class Collections {
  constructor(private readonly http: LoreHttp) {}

  create(body: BodyOf<'create_collection'>): Promise<Collection> {
    return unwrap(this.http.api.POST('/api/v1/collections', { body }));
  }

  get(collectionId: string): Promise<Collection> {
    return unwrap(this.http.api.GET('/api/v1/collections/{collection_id}', { params: { path: { collection_id: collectionId } } }));
  }

  update(collectionId: string, body: BodyOf<'update_collection'>): Promise<Collection> {
    return unwrap(this.http.api.PATCH('/api/v1/collections/{collection_id}', { params: { path: { collection_id: collectionId } }, body }));
  }

  /** Removes the collection with its contents, chunks and vectors before the answer. */
  delete(collectionId: string): Promise<ReplyOf<'delete_collection'>> {
    return unwrap(this.http.api.DELETE('/api/v1/collections/{collection_id}', { params: { path: { collection_id: collectionId } } }));
  }

  list(query: QueryOf<'list_collections'> = {}): Promise<ReplyOf<'list_collections'>> {
    return unwrap(this.http.api.GET('/api/v1/collections', { params: { query } }));
  }

  iterate(filters: Filters<QueryOf<'list_collections'>> = {}): AsyncGenerator<Collection, void, undefined> {
    return offsetItems(async (skip) => {
      const page = await this.list({ ...filters, skip });
      return { items: page.data, hasMore: page.has_more };
    });
  }

  /** Vector, keyword or hybrid (default) search; each result carries its sub-scores. A read: repeated after a 503. */
  search(body: BodyOf<'search_collection'>): Promise<SearchResponse> {
    return unwrap(this.http.api.POST('/api/v1/collections/search', { body, fetch: this.http.idempotent }));
  }
}

/** A file to upload: a Blob or File (Node ≥ 20 has both globally); `filename` names a Blob. */
export interface UploadRequest {
  readonly collection_id: string;
  readonly file: Blob;
  /** The name Lore detects the type by (`notes.md`, `report.pdf`); a File's own name by default. */
  readonly filename?: string;
  readonly name?: string;
  readonly source?: string;
  readonly metadata?: Record<string, unknown>;
}

/** Texts and files in collections (`/api/v1/contents`), split into chunks in the background. */
export class Contents {
  constructor(private readonly http: LoreHttp) {}

  /** A text given as JSON. */
  create(body: BodyOf<'create_content'>): Promise<Content> {
    return unwrap(this.http.api.POST('/api/v1/contents', { body }));
  }

  /** A file (txt, md, html, json, csv, pdf, docx) as `multipart/form-data`; Lore keeps its text. */
  upload(request: UploadRequest): Promise<Content> {
    const form = new FormData();
    form.set('collection_id', request.collection_id);
    if (request.name !== undefined) form.set('name', request.name);
    if (request.source !== undefined) form.set('source', request.source);
    if (request.metadata !== undefined) form.set('metadata', JSON.stringify(request.metadata));
    const filename = request.filename ?? (request.file instanceof File ? request.file.name : undefined);
    if (filename === undefined) throw new TypeError('upload: give a File, or a Blob with a filename');
    form.set('file', request.file, filename);
    // The generated body type is the multipart schema's (file as a string); FormData is what goes on the wire.
    return unwrap(this.http.api.POST('/api/v1/contents', { body: form as unknown as BodyOf<'create_content'>, bodySerializer: (body) => body as unknown as FormData }));
  }

  get(contentId: string): Promise<Content> {
    return unwrap(this.http.api.GET('/api/v1/contents/{content_id}', { params: { path: { content_id: contentId } } }));
  }

  delete(contentId: string): Promise<ReplyOf<'delete_content'>> {
    return unwrap(this.http.api.DELETE('/api/v1/contents/{content_id}', { params: { path: { content_id: contentId } } }));
  }

  /** The uploaded file as it came, while it is kept (the record's `original`); a 404 LoreApiError otherwise. */
  async download(contentId: string): Promise<Uint8Array> {
    const bytes = await unwrap(this.http.api.GET('/api/v1/contents/{content_id}/file', { params: { path: { content_id: contentId } }, parseAs: 'arrayBuffer' }));
    return new Uint8Array(bytes);
  }

  reprocess(contentId: string): Promise<Content> {
    return unwrap(this.http.api.POST('/api/v1/contents/{content_id}/reprocess', { params: { path: { content_id: contentId } } }));
  }

  list(query: QueryOf<'list_contents'> = {}): Promise<ReplyOf<'list_contents'>> {
    return unwrap(this.http.api.GET('/api/v1/contents', { params: { query } }));
  }

  iterate(filters: Filters<QueryOf<'list_contents'>> = {}): AsyncGenerator<Content, void, undefined> {
    return offsetItems(async (skip) => {
      const page = await this.list({ ...filters, skip });
      return { items: page.contents, hasMore: page.has_more };
    });
  }

  /**
   * Polls until the content's processing ends: resolves with it `completed` (its chunks are
   * searchable), rejects with a {@link LoreProcessingError} when it ends `failed`.
   */
  async waitUntilProcessed(contentId: string, options: { timeoutMs?: number; intervalMs?: number } = {}): Promise<Content> {
    const deadline = Date.now() + (options.timeoutMs ?? 60_000);
    for (;;) {
      const content = await this.get(contentId);
      if (content.status === 'completed') return content;
      if (content.status === 'failed') throw new LoreProcessingError(contentId, content.error ?? null);
      if (Date.now() > deadline) throw new Error(`content ${contentId} still ${content.status} after ${options.timeoutMs ?? 60_000} ms`);
      await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 250));
    }
  }
}

/** The chunks contents are split into (`/api/v1/chunks`). */
export class Chunks {
  constructor(private readonly http: LoreHttp) {}

  list(query: QueryOf<'list_chunks'> = {}): Promise<ReplyOf<'list_chunks'>> {
    return unwrap(this.http.api.GET('/api/v1/chunks', { params: { query } }));
  }

  iterate(filters: Filters<QueryOf<'list_chunks'>> = {}): AsyncGenerator<Chunk, void, undefined> {
    return cursorItems(async (cursor) => {
      const page = await this.list({ ...filters, ...(cursor === undefined ? {} : { cursor }) });
      return { items: page.chunks, nextCursor: page.next_cursor, hasMore: page.has_more };
    });
  }

  get(chunkId: string, query: QueryOf<'get_chunk'> = {}): Promise<Chunk> {
    return unwrap(this.http.api.GET('/api/v1/chunks/{chunk_id}', { params: { path: { chunk_id: chunkId }, query } }));
  }

  /** New `content` is embedded before the answer; `metadata` replaces the chunk's. */
  update(chunkId: string, body: BodyOf<'update_chunk'>): Promise<Chunk> {
    return unwrap(this.http.api.PATCH('/api/v1/chunks/{chunk_id}', { params: { path: { chunk_id: chunkId } }, body }));
  }

  delete(chunkId: string): Promise<ReplyOf<'delete_chunk'>> {
    return unwrap(this.http.api.DELETE('/api/v1/chunks/{chunk_id}', { params: { path: { chunk_id: chunkId } } }));
  }
}
