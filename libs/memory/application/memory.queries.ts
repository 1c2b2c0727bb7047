import { setImmediate as nextTurn } from 'node:timers/promises';
import { AppError, notFound, type Clock, type ReplyIn, type ValidRequestIn } from '@lore/platform/kernel';
import { decodeCursor, encodeCursor, workspaceCollection, type DocumentStore, type WorkspaceCollection, type Filter, type Page, type Sort } from '@lore/platform/documents/port';
import type { SealedFields } from '@lore/platform/crypto';
import type { MemoryMessages, MemoryRecord, MemoryVersion } from '@lore/memory/contracts';
import { isLive, toMemoryRecord, toMemoryVersion, type DecisionNote, type MemoryContent } from './memory-content';
import { liveMemoryFilter, MEMORIES, MEMORY_VERSIONS, type MemoryDoc, type MemoryVersionDoc } from './memory.read-models';

/** Documents a read takes before the next turn (see `pages`). */
const READ_PAGE = 500;

export class MemoryQueries {
  constructor(
    private readonly documents: DocumentStore,
    private readonly sealed: SealedFields<MemoryContent>,
    private readonly notes: SealedFields<DecisionNote>,
    private readonly clock: Clock,
  ) {}

  private memories(workspaceId: string) {
    return workspaceCollection<MemoryDoc>(this.documents, MEMORIES, workspaceId);
  }

  private versions(workspaceId: string) {
    return workspaceCollection<MemoryVersionDoc>(this.documents, MEMORY_VERSIONS, workspaceId);
  }

  async get(ref: ValidRequestIn<MemoryMessages, 'get'>): Promise<ReplyIn<MemoryMessages, 'get'>> {
    const doc = await this.memories(ref.workspaceId).get(ref.memoryId);
    // Another user's memory is indistinguishable from a missing one (as another workspace's is);
    // so is an expired one, which the sweep is about to erase. A superseded one is shown, with its status.
    if (doc === null || doc.user_id !== ref.userId || isExpired(doc, this.clock.now())) throw notFound('Memory');
    return toMemoryRecord(doc, await this.sealed.open(doc.id, doc.content));
  }

  async history(ref: ValidRequestIn<MemoryMessages, 'history'>): Promise<ReplyIn<MemoryMessages, 'history'>> {
    await this.get(ref);
    const versions: MemoryVersion[] = [];
    for await (const page of this.pages(this.versions(ref.workspaceId), { memory_id: ref.memoryId }, [['version', 'asc']])) {
      for (const v of page) versions.push(toMemoryVersion(v, await this.sealed.open(v.memory_id, v.content), await this.openNote(v)));
    }
    return { versions };
  }

  /**
   * Topics and text live sealed, so those filters run after opening. Without them the
   * store pages by itself; with them the user's memories are opened and paged here with
   * the same keyset cursor format, which stays stable under concurrent inserts.
   */
  async list(query: ValidRequestIn<MemoryMessages, 'list'>): Promise<ReplyIn<MemoryMessages, 'list'>> {
    const memories = this.memories(query.workspaceId);
    const now = this.clock.now();
    // The store pages without the expiry condition: a keyset cursor is bound to its filter, and
    // one holding "now" would change with every page. Expired memories are dropped from each
    // page instead (a page may come out shorter), and counted out of `total` exactly.
    const filter: Filter = {
      superseded: false,
      user_id: query.userId,
      ...(query.memoryType === undefined ? {} : { memory_type: query.memoryType }),
    };
    const sort = [[query.sortBy, query.sortOrder]] as const;
    const topics = query.topics ?? [];
    const search = query.search?.toLowerCase();
    if (topics.length === 0 && !search) {
      const [total, page] = await Promise.all([
        memories.count({ ...filter, ...liveMemoryFilter(now) }),
        memories.find({ filter, sort, limit: query.limit, ...(query.cursor ? { cursor: query.cursor } : { skip: query.skip }) }),
      ]);
      const opened = await Promise.all(page.items.filter((doc) => isLive(doc, now)).map(async (doc) => this.openRecord(doc)));
      return { items: opened.filter((r) => r !== null), total, nextCursor: page.nextCursor };
    }
    const matching: Array<{ doc: MemoryDoc; content: MemoryContent }> = [];
    // Read in pages by creation (which never changes), then ordered here: pages by `updated_at`
    // would meet a memory updated between two of them twice, or not at all.
    for await (const page of this.pages(memories, { ...filter, ...liveMemoryFilter(now) }, [['created_at', 'asc']])) {
      for (const doc of page) {
        const content = await this.openContent(doc.id, doc.content);
        if (content === null) continue;
        if (!topics.every((t) => content.topics.includes(t))) continue;
        if (search && !content.memory.toLowerCase().includes(search)) continue;
        matching.push({ doc, content });
      }
    }
    matching.sort((a, b) => compareInOrder(a.doc, b.doc, query.sortBy, query.sortOrder));
    const start = query.cursor ? startAfterCursor(matching.map((m) => m.doc), query.cursor, query.sortBy, query.sortOrder) : query.skip;
    const slice = matching.slice(start, start + query.limit);
    const last = slice[slice.length - 1];
    const more = start + query.limit < matching.length;
    return {
      items: slice.map((m) => toMemoryRecord(m.doc, m.content)),
      total: matching.length,
      nextCursor: more && last ? encodeCursor({ values: [last.doc[query.sortBy]], id: last.doc.id }) : null,
    };
  }

  async export(scope: ValidRequestIn<MemoryMessages, 'export'>): Promise<ReplyIn<MemoryMessages, 'export'>> {
    const filter = { user_id: scope.userId };
    // Superseded memories are exported too (with their status): they are the user's data. Expired ones are not.
    const unexpired = { $or: [{ expires_at: { $exists: false } }, { expires_at: { $gt: this.clock.now().toISOString() } }] };
    const records: MemoryRecord[] = [];
    for await (const page of this.pages(this.memories(scope.workspaceId), { ...filter, ...unexpired }, [['created_at', 'asc']])) {
      for (const record of await Promise.all(page.map(async (doc) => this.openRecord(doc)))) if (record !== null) records.push(record);
    }
    const byMemory = new Map<string, MemoryVersion[]>();
    // Not those of a memory deleted (its versions still being purged, under a shredded key) or expired.
    const exported = new Set(records.map((record) => record.memory_id));
    for await (const page of this.pages(this.versions(scope.workspaceId), filter, [['memory_id', 'asc'], ['version', 'asc']])) {
      for (const v of page) {
        if (!exported.has(v.memory_id)) continue;
        const content = await this.openContent(v.memory_id, v.content);
        if (content === null) continue;
        const list = byMemory.get(v.memory_id) ?? [];
        list.push(toMemoryVersion(v, content, await this.openNote(v)));
        byMemory.set(v.memory_id, list);
      }
    }
    const memories = records.map((record) => ({ ...record, history: byMemory.get(record.memory_id) ?? [] }));
    return { exportedAt: this.clock.now().toISOString(), memories };
  }

  /**
   * What a filter selects, READ_PAGE documents a read with a turn between: a memory has as many
   * versions as it had changes, and a user up to a workspace's QUOTA_MEMORIES memories; 50,000
   * versions read in one query and opened at once held every request of the process for about
   * a second.
   */
  private async *pages<T extends MemoryDoc | MemoryVersionDoc>(collection: WorkspaceCollection<T>, filter: Filter, sort: Sort): AsyncGenerator<T[]> {
    for (let cursor: string | null = null; ; ) {
      const page: Page<T> = await collection.find({ filter, sort, limit: READ_PAGE, ...(cursor === null ? {} : { cursor }) });
      yield page.items;
      cursor = page.nextCursor;
      if (cursor === null) return;
      await nextTurn();
    }
  }

  private async openRecord(doc: MemoryDoc): Promise<MemoryRecord | null> {
    const content = await this.openContent(doc.id, doc.content);
    return content === null ? null : toMemoryRecord(doc, content);
  }

  private async openNote(version: MemoryVersionDoc): Promise<DecisionNote | null> {
    if (version.provenance === null || version.provenance === undefined) return null;
    try {
      return await this.notes.open(version.memory_id, version.provenance.note);
    } catch (error) {
      if (error instanceof AppError && error.code === 'not_found') return null;
      throw error;
    }
  }

  /** Null for a memory erased since the read: a listing leaves it out rather than failing. */
  private async openContent(memoryId: string, sealed: string): Promise<MemoryContent | null> {
    try {
      return await this.sealed.open(memoryId, sealed);
    } catch (error) {
      if (error instanceof AppError && error.code === 'not_found') return null;
      throw error;
    }
  }
}

type SortKey = 'created_at' | 'updated_at';

/** (sort value, id) against another's, in `order`: the order of a filtered list and of its cursors. */
function compareAt(value: string, id: string, other: { readonly value: string; readonly id: string }, order: 'asc' | 'desc'): number {
  const byValue = value === other.value ? 0 : value > other.value ? 1 : -1;
  const cmp = byValue !== 0 ? byValue : id === other.id ? 0 : id > other.id ? 1 : -1;
  return order === 'asc' ? cmp : -cmp;
}

function compareInOrder(a: MemoryDoc, b: MemoryDoc, sortBy: SortKey, order: 'asc' | 'desc'): number {
  return compareAt(a[sortBy], a.id, { value: b[sortBy], id: b.id }, order);
}

/** Index of the first item strictly after the cursor's (sort value, id) in the given order. */
function startAfterCursor(docs: readonly MemoryDoc[], cursor: string, sortBy: SortKey, order: 'asc' | 'desc'): number {
  const position = decodeCursor(cursor);
  const value = position?.values[0];
  if (position === null || typeof value !== 'string') throw new AppError('validation', 'Invalid cursor', [{ loc: ['message', 'cursor'], msg: 'Invalid cursor', type: 'value_error' }]);
  const index = docs.findIndex((doc) => compareAt(doc[sortBy], doc.id, { value, id: position.id }, order) > 0);
  return index === -1 ? docs.length : index;
}

function isExpired(doc: MemoryDoc, now: Date): boolean {
  return doc.expires_at != null && doc.expires_at <= now.toISOString();
}
