/**
 * Read-model port shaped after MongoDB: JSON documents in named collections, each with a
 * string `id`, queried by a small filter language, sorted, paged by opaque keyset cursors.
 */
export interface Doc {
  readonly id: string;
  readonly [field: string]: unknown;
}

export type Scalar = string | number | boolean | null;

export interface FieldOperators {
  readonly $eq?: Scalar;
  readonly $ne?: Scalar;
  readonly $in?: readonly Scalar[];
  readonly $nin?: readonly Scalar[];
  readonly $gt?: Scalar;
  readonly $gte?: Scalar;
  readonly $lt?: Scalar;
  readonly $lte?: Scalar;
  /** true: the field is present and not null; false: absent or null. */
  readonly $exists?: boolean;
  /** The field is an array holding this value. */
  readonly $contains?: Scalar;
  /** The field is an array holding every one of these values. */
  readonly $containsAll?: readonly Scalar[];
  /** Case-insensitive substring match on a string field. */
  readonly $icontains?: string;
}

/**
 * Field paths use dots for nesting (`meta.owner`). A plain value means equality. All entries
 * must hold (AND); `$or` holds when any of its filters holds.
 */
export type Filter = {
  readonly $or?: readonly Filter[];
  /**
   * Word search in the collection's text-indexed field (see `ensureTextIndex`): matches the
   * documents whose field holds EVERY word of the string (AND, any order), ignoring case and
   * diacritics ("CAFÉ" finds "cafe"), with English stemming ("run" finds "running" and "runs").
   * Words are the runs of letters, digits and combining marks (`textSearchWords`); everything
   * else, quotes and search-engine operators included, only separates words, so input can
   * never change the query's meaning. A string without any word matches nothing.
   *
   * Allowed at the top level only (never inside `$or`), where it combines with the other
   * entries by AND and works with sort, limit, skip, cursors, count and deleteMany. A
   * collection without a text index rejects it with an Error. Results keep the given sort;
   * there is no relevance order.
   *
   * Engines differ at the edges, so callers should not rely on these: SQLite (FTS5, porter)
   * matches stemmed whole words both ways ("running" also finds "run"); MongoDB looks words
   * up by stem in its `english` text index, then checks each word as a case- and
   * diacritic-insensitive substring of the field, so a word is found inside a longer one once
   * another query word matched whole ("run" in "rerun"), "running" does not find a lone "run",
   * and English stop words ("the", "and") alone match nothing there.
   */
  readonly $text?: string;
} & {
  readonly [field: string]: Scalar | FieldOperators | readonly Filter[] | undefined;
};

export type SortDirection = 'asc' | 'desc';
/** Sort keys in priority order; `id` is always appended as the final tie-breaker. */
export type Sort = ReadonlyArray<readonly [field: string, direction: SortDirection]>;

export interface FindOptions {
  readonly filter?: Filter;
  readonly sort?: Sort;
  /** Page size; omitted means every match. */
  readonly limit?: number;
  /** Offset paging; ignored when `cursor` is given. */
  readonly skip?: number;
  /** The `nextCursor` of a previous page with the same filter and sort. */
  readonly cursor?: string;
}

export interface Page<T> {
  readonly items: T[];
  /** Opaque keyset cursor after the last item, or null when no more items match. */
  readonly nextCursor: string | null;
}

export interface DocumentCollection<T extends Doc = Doc> {
  get(id: string): Promise<T | null>;
  find(options?: FindOptions): Promise<Page<T>>;
  count(filter?: Filter): Promise<number>;
  /** Insert or replace the whole document. */
  upsert(doc: T): Promise<void>;
  delete(id: string): Promise<boolean>;
  deleteMany(filter: Filter): Promise<number>;
  /** Declares a query shape worth indexing; adapters create the index if missing. */
  ensureIndex(fields: readonly string[]): Promise<void>;
  /**
   * Declares the collection's one text-searchable string field (a dotted path; not `id`),
   * which `$text` filters search. Idempotent for the same field; a collection has at most one,
   * so naming a different field than the existing one throws. Existing documents are indexed;
   * values that are not strings are not searchable.
   */
  ensureTextIndex(field: string): Promise<void>;
}

export type DocumentWrite =
  | { readonly collection: string; readonly op: 'upsert'; readonly doc: Doc }
  | { readonly collection: string; readonly op: 'delete'; readonly id: string }
  | { readonly collection: string; readonly op: 'deleteMany'; readonly filter: Filter };

export interface DocumentStore {
  collection<T extends Doc = Doc>(name: string): DocumentCollection<T>;
  /**
   * Applies writes in order together with a checkpoint. Atomic on engines that offer it
   * (SQLite); elsewhere writes come first and the checkpoint last, so a crash replays
   * idempotent writes rather than skipping them.
   */
  write(writes: readonly DocumentWrite[], checkpoint?: { readonly name: string; readonly value: string }): Promise<void>;
  getCheckpoint(name: string): Promise<string | null>;
  /** Rebuild support: empties the named collections and removes the checkpoint (atomically where possible). */
  reset(collections: readonly string[], checkpointName: string): Promise<void>;
  /**
   * Makes deletions physical: after it returns, no deleted document's bytes remain in the
   * engine's files that the adapter controls (SQLite: secure_delete plus WAL truncation).
   */
  purgeDeleted(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The words `$text` searches for: runs of letters, digits and combining marks, in order, with
 * duplicates kept. Shared by the adapters so that they split input alike.
 */
export function textSearchWords(search: string): string[] {
  return search.match(/[\p{L}\p{N}\p{M}]+/gu) ?? [];
}
