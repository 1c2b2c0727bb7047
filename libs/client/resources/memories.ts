import { unwrap, type LoreHttp } from '../core/http';
import { cursorItems } from '../core/pagination';
import type { BodyOf, Filters, QueryOf, ReplyOf, Schemas } from '../core/types';

export type Memory = Schemas['MemoryRecord'];

/** Per-user memories (`/api/v1/memories`). An API-key caller names the user it acts for (`user_id`). */
export class Memories {
  constructor(private readonly http: LoreHttp) {}

  create(body: BodyOf<'create_memory'>): Promise<ReplyOf<'create_memory'>> {
    return unwrap(this.http.api.POST('/api/v1/memories', { body }));
  }

  get(memoryId: string, query: QueryOf<'get_memory'> = {}): Promise<Memory> {
    return unwrap(this.http.api.GET('/api/v1/memories/{memory_id}', { params: { path: { memory_id: memoryId }, query } }));
  }

  replace(memoryId: string, body: BodyOf<'replace_memory'>): Promise<ReplyOf<'replace_memory'>> {
    return unwrap(this.http.api.POST('/api/v1/memories/{memory_id}/replace', { params: { path: { memory_id: memoryId } }, body }));
  }

  /** Permanent: the memory's key is shredded before the answer. */
  delete(memoryId: string, query: QueryOf<'delete_memory'> = {}): Promise<ReplyOf<'delete_memory'>> {
    return unwrap(this.http.api.DELETE('/api/v1/memories/{memory_id}', { params: { path: { memory_id: memoryId }, query } }));
  }

  /** Every memory of one user. */
  deleteAll(query: QueryOf<'delete_user_memories'>): Promise<ReplyOf<'delete_user_memories'>> {
    return unwrap(this.http.api.DELETE('/api/v1/memories', { params: { query } }));
  }

  /** One page; `cursor` from the previous page's `next_cursor`. */
  list(query: QueryOf<'list_memories'> = {}): Promise<ReplyOf<'list_memories'>> {
    return unwrap(this.http.api.GET('/api/v1/memories', { params: { query } }));
  }

  /** Every memory matching the filters, page after page by cursor. */
  iterate(filters: Filters<QueryOf<'list_memories'>> = {}): AsyncGenerator<Memory, void, undefined> {
    return cursorItems(async (cursor) => {
      const page = await this.list({ ...filters, ...(cursor === undefined ? {} : { cursor }) });
      return { items: page.data, nextCursor: page.next_cursor, hasMore: page.has_more };
    });
  }

  history(memoryId: string, query: QueryOf<'get_memory_history'> = {}): Promise<ReplyOf<'get_memory_history'>> {
    return unwrap(this.http.api.GET('/api/v1/memories/{memory_id}/history', { params: { path: { memory_id: memoryId }, query } }));
  }

  export(query: QueryOf<'export_user_memories'> = {}): Promise<ReplyOf<'export_user_memories'>> {
    return unwrap(this.http.api.GET('/api/v1/memories/export', { params: { query } }));
  }

  /**
   * Memory extraction: the server's chat model proposes facts from `messages` or a
   * `conversation_id`, and each is decided (add, update, invalidate, none) against the user's
   * memories. Not repeated after a 503: a retry would decide again (duplicates come out `none`).
   */
  extract(body: BodyOf<'extract_memories'>): Promise<ReplyOf<'extract_memories'>> {
    return unwrap(this.http.api.POST('/api/v1/memories/extract', { body }));
  }

  /** Undoes a memory's latest extraction decision (by a new event; 409 for an older one). */
  undoDecision(memoryId: string, decisionId: string, body: BodyOf<'undo_memory_decision'> = {}): Promise<ReplyOf<'undo_memory_decision'>> {
    return unwrap(this.http.api.POST('/api/v1/memories/{memory_id}/decisions/{decision_id}/undo', { params: { path: { memory_id: memoryId, decision_id: decisionId } }, body }));
  }

  /** Hybrid search over one user's memories; a read, so it is repeated after a 503. */
  search(body: BodyOf<'search_memories'>): Promise<ReplyOf<'search_memories'>> {
    return unwrap(this.http.api.POST('/api/v1/memories/search', { body, fetch: this.http.idempotent }));
  }
}
