/**
 * The keyword index of one vector index: per collection, postings in memory
 * (`keyword-collection.ts`), searched by `keyword-search.ts`; durably, two tables in the same
 * SQLite file, written in the same transaction as the point (read-your-writes, idempotent
 * replays and rollbacks hold as for the point itself):
 *
 * - `vec_kwdocs_x (rowid, terms)`: per point, its term ids and frequencies and its length
 *   (`keyword-document.ts`), so that loading the index at start reads compact records instead
 *   of tokenising every text again;
 * - `vec_kwterms_x (id, term)`: the vocabulary. A term's row is deleted with the last point
 *   holding it (reference counts are kept in memory, derived from the records at load), so a
 *   deleted point's words leave the file (with secure_delete) like its text does.
 *
 * The in-memory side is loaded on first use and dropped whenever a transaction that changed
 * it rolls back (the store then reloads it from the committed tables).
 */
import type Database from 'better-sqlite3';
import { CollectionBuilder, CollectionKeywords } from './keyword-collection';
import { decodeTerms, emptyDocTerms, encodeTerms, forEachToken, stemOf } from './keyword-document';
import type { IndexTables, Param } from './sqlite-vector-schema';

const MAX_CACHED_TOKENS = 500_000;

export interface KeywordSql {
  prepare(sql: string): Database.Statement<Param[]>;
  run(sql: string, params: readonly Param[]): Database.RunResult;
}

/** Quiet time after a collection's last deletion before its due compaction runs, ms. */
const COMPACT_WHEN_QUIET_MS = 1_000;
/** Postings entries a turn of an overdue collection's pruning reads (a few ms). */
const PRUNE_ENTRIES_PER_TURN = 50_000;

export class KeywordIndex {
  readonly collections = new Map<string, CollectionKeywords>();
  /** Collections whose compaction waits for them to be quiet (see `remove`). */
  private readonly compactions = new Map<string, NodeJS.Timeout>();
  /** Collections whose lists are being pruned, a slice a turn (see `compactLater`), and the dead ordinals each pass started at. */
  private readonly prunings = new Map<string, { immediate: NodeJS.Immediate | null; readonly deadAtStart: number }>();
  private readonly vocab = new Map<string, number>();
  private readonly terms: Array<string | undefined> = [];
  private readonly refs: number[] = [];
  private nextId = 1;
  /** Scratch record for decoding. */
  private readonly scratch = emptyDocTerms();
  /** Folded token → term id, so that indexing a known word costs one lookup (ids are never reused: a deleted term's entry is recomputed). */
  private readonly idOfToken = new Map<string, number>();
  /** Term frequencies of the document being added, by term id; zero outside `add`. */
  private counts = new Int32Array(1024);

  private constructor(
    private readonly sql: KeywordSql,
    private readonly tables: IndexTables,
  ) {}

  /** An empty index (new or migrating tables). */
  static empty(sql: KeywordSql, tables: IndexTables): KeywordIndex {
    return new KeywordIndex(sql, tables);
  }

  /** The index as committed in the tables. */
  static load(sql: KeywordSql, tables: IndexTables): KeywordIndex {
    const index = new KeywordIndex(sql, tables);
    const vocab = sql.prepare(`SELECT id, term FROM ${tables.kwTerms}`).raw(true).iterate() as IterableIterator<[number, string]>;
    for (const [id, term] of vocab) {
      index.vocab.set(term, id);
      index.terms[id] = term;
      index.refs[id] = 0;
      if (id >= index.nextId) index.nextId = id + 1;
    }
    const docs = sql
      .prepare(`SELECT p.rowid, p.collection_id, k.terms FROM ${tables.points} AS p JOIN ${tables.kwDocs} AS k ON k.rowid = p.rowid ORDER BY p.rowid`)
      .raw(true)
      .iterate() as IterableIterator<[number, string, Buffer]>;
    const builders = new Map<string, CollectionBuilder>();
    let last: CollectionBuilder | undefined;
    let lastId = '';
    const refs = new Int32Array(index.nextId);
    for (const [rowid, collection, blob] of docs) {
      const doc = decodeTerms(blob, index.scratch);
      for (let i = 0; i < doc.count; i++) {
        const id = doc.ids[i] ?? 0;
        refs[id] = (refs[id] ?? 0) + 1;
      }
      if (!last || collection !== lastId) {
        last = builders.get(collection);
        if (!last) {
          last = new CollectionBuilder();
          builders.set(collection, last);
        }
        lastId = collection;
      }
      last.add(rowid, doc);
    }
    for (const id of index.vocab.values()) index.refs[id] = refs[id] ?? 0;
    const counts = new Int32Array(index.nextId);
    for (const [collection, builder] of builders) index.collections.set(collection, builder.finish(counts));
    return index;
  }

  /** Term ids of stems, undefined for a stem no point holds. */
  termId(term: string): number | undefined {
    return this.vocab.get(term);
  }

  /** Indexes a point's text (a rowid not indexed yet). */
  add(rowid: number, collection: string, text: string): void {
    const touched: number[] = [];
    let length = 0;
    forEachToken(text, (folded) => {
      length++;
      let id = this.idOfToken.get(folded);
      if (id === undefined || this.terms[id] === undefined) {
        id = this.termIdOrNew(stemOf(folded));
        if (this.idOfToken.size >= MAX_CACHED_TOKENS) this.idOfToken.clear();
        this.idOfToken.set(folded, id);
      }
      if (id >= this.counts.length) {
        const counts = new Int32Array(Math.max(id + 1, this.counts.length * 2));
        counts.set(this.counts);
        this.counts = counts;
      }
      if (this.counts[id] === 0) touched.push(id);
      this.counts[id] = (this.counts[id] ?? 0) + 1;
    });
    const ids = Int32Array.from(touched).sort();
    const doc = { ids, tfs: new Int32Array(ids.length), count: ids.length, length };
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i] ?? 0;
      doc.tfs[i] = Math.min(this.counts[id] ?? 0, 0xffff);
      this.counts[id] = 0;
      this.refs[id] = (this.refs[id] ?? 0) + 1;
    }
    this.sql.run(`INSERT INTO ${this.tables.kwDocs} (rowid, terms) VALUES (?, ?)`, [rowid, encodeTerms(doc)]);
    this.collection(collection).add(rowid, doc);
  }

  private termIdOrNew(term: string): number {
    const known = this.vocab.get(term);
    if (known !== undefined) return known;
    const id = this.nextId++;
    this.sql.run(`INSERT INTO ${this.tables.kwTerms} (id, term) VALUES (?, ?)`, [id, term]);
    this.vocab.set(term, id);
    this.terms[id] = term;
    this.refs[id] = 0;
    return id;
  }

  /** Removes a point's terms (nothing when it has none indexed); a term no other point holds leaves the vocabulary. */
  remove(rowid: number, collection: string): void {
    const blob = this.sql.prepare(`SELECT terms FROM ${this.tables.kwDocs} WHERE rowid = ?`).pluck(true).get(rowid) as Buffer | undefined;
    if (!blob) return;
    const doc = decodeTerms(blob, this.scratch);
    const keywords = this.collections.get(collection);
    if (keywords) {
      keywords.remove(rowid, doc);
      if (keywords.live === 0) {
        this.collections.delete(collection);
        this.stopPruning(collection);
      } else this.compactLater(collection, keywords);
    }
    for (let i = 0; i < doc.count; i++) {
      const id = doc.ids[i] ?? 0;
      const refs = (this.refs[id] ?? 0) - 1;
      this.refs[id] = refs;
      if (refs > 0) continue;
      this.sql.run(`DELETE FROM ${this.tables.kwTerms} WHERE id = ?`, [id]);
      const term = this.terms[id];
      if (term !== undefined) this.vocab.delete(term);
      this.terms[id] = undefined;
    }
    this.sql.run(`DELETE FROM ${this.tables.kwDocs} WHERE rowid = ?`, [rowid]);
  }

  /**
   * A compaction rewrites the whole collection in one piece on the event loop (~0.5 s for
   * 26,000 chunks). Run on the deletion that made it due, a content's chunks deleted page by
   * page compacted the collection at a quarter dead, then again and again (about four full
   * rewrites) though the collection then emptied and was dropped. It runs once the collection
   * has had no deletion for COMPACT_WHEN_QUIET_MS. Past three quarters dead, searches cannot wait
   * that long: the lists' dead entries are dropped meanwhile a slice a turn (`pruneInTurns`);
   * compacting there at once held every workspace's requests 150–290 ms in the middle of a
   * 26,311-chunk content's deletion (profiled under probe:deletion-isolation).
   */
  private compactLater(id: string, keywords: CollectionKeywords): void {
    if (keywords.compactionOverdue()) this.pruneInTurns(id, keywords);
    if (!keywords.compactionDue()) return;
    clearTimeout(this.compactions.get(id));
    const timer = setTimeout(() => {
      this.compactions.delete(id);
      const current = this.collections.get(id);
      if (current?.compactionDue()) {
        current.compact();
        // Its lists are new and without dead entries: the next pruning counts from here.
        this.stopPruning(id);
      }
    }, COMPACT_WHEN_QUIET_MS);
    timer.unref();
    this.compactions.set(id, timer);
  }

  /**
   * Drops the dead entries from an overdue collection's lists, a slice a turn, while it stays
   * this index's; a new pass starts once another quarter of the live documents died since the last one began.
   */
  private pruneInTurns(id: string, keywords: CollectionKeywords): void {
    const dead = keywords.rowids.length - keywords.live;
    const last = this.prunings.get(id);
    if (last !== undefined && (last.immediate !== null || dead - last.deadAtStart < keywords.live / 4)) return;
    const pass = keywords.startPruning();
    const state: { immediate: NodeJS.Immediate | null; readonly deadAtStart: number } = { immediate: null, deadAtStart: dead };
    const step = (): void => {
      state.immediate = null;
      if (this.collections.get(id) !== keywords || !keywords.pruneStep(pass, PRUNE_ENTRIES_PER_TURN)) return;
      state.immediate = setImmediate(step);
      state.immediate.unref();
    };
    this.prunings.set(id, state);
    state.immediate = setImmediate(step);
    state.immediate.unref();
  }

  private stopPruning(id: string): void {
    const pruning = this.prunings.get(id);
    if (pruning?.immediate) clearImmediate(pruning.immediate);
    this.prunings.delete(id);
  }

  /** Cancels the compactions waiting for quiet and the prunings under way: the index is being discarded (a rollback, a reset, a drop, a close). */
  dispose(): void {
    for (const timer of this.compactions.values()) clearTimeout(timer);
    this.compactions.clear();
    for (const { immediate } of this.prunings.values()) if (immediate !== null) clearImmediate(immediate);
    this.prunings.clear();
  }

  private collection(id: string): CollectionKeywords {
    let keywords = this.collections.get(id);
    if (!keywords) {
      keywords = new CollectionKeywords();
      this.collections.set(id, keywords);
    }
    return keywords;
  }
}
