/**
 * Embedded read-model store: one SQLite table per collection holding JSON bodies, queried
 * through json_extract. Synchronous better-sqlite3 calls behind the async port: SQLite work
 * here is short and in-process, and a single connection keeps write ordering trivial.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import type Database from 'better-sqlite3';
import { settled } from '@lore/platform/kernel';
import { openPrivateDatabase, withTempFilesOnDisk } from '@lore/platform/sqlite';
import type { Doc, DocumentCollection, DocumentStore, DocumentWrite, Filter } from '@lore/platform/documents/port';
import { assertCollectionName } from '@lore/platform/documents/port';
import { SqliteQueryTranslator } from './sqlite-query.translator';
import { SqliteDocumentCollection } from './sqlite-document-collection';
import type { SqlValue } from './sqlite-query.translator';
import { KnownTextIndexes, textIndexParts } from './sqlite-text-index';

export interface SqliteDocumentStoreOptions {
  /** File path, or ':memory:' for a private in-memory database. */
  readonly path: string;
  /**
   * 'normal' (default): WAL with synchronous=NORMAL may lose the last transactions on power
   * loss but never corrupts; read models are rebuildable from events, so that is acceptable.
   * 'full': fsync on every commit, for stores that cannot be rebuilt (e.g. a keyring).
   */
  readonly durability?: 'full' | 'normal';
}

/** Synchronous, like better-sqlite3 itself: opening a local file cannot usefully be awaited. */
export function openSqliteDocumentStore(options: SqliteDocumentStoreOptions): DocumentStore {
  return new SqliteDocumentStore(options);
}

const CHECKPOINTS = 'lore_checkpoints';
/** Which docs table has its text index on which field, so that every connection to the file knows. */
const TEXT_INDEXES = 'lore_text_indexes';
/**
 * Up to this many `$text` matches, a query is driven from the FTS5 result by rowid (well under
 * a millisecond for a few hundred); past it, SQLite's own plan, which without statistics scans
 * an index on the other conditions and probes the FTS5 result per row (tens of ms per 100k rows,
 * far less than fetching and sorting every match of a common word).
 */
const FEW_TEXT_MATCHES = 1000;
/** Filter shapes repeat, but `$in` lists of varying length make new SQL; bound the cache. */
const STATEMENT_CACHE_SIZE = 500;

type Statement = Database.Statement<SqlValue[]>;

/** The statements every write and read of one document runs, prepared once per table. */
interface RowStatements {
  readonly upsert: Statement;
  readonly delete: Statement;
  /** Plucks the body. */
  readonly get: Statement;
}

const UPSERT_CHECKPOINT = `INSERT INTO ${CHECKPOINTS} (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value`;

/** Documents a large deleteMany removes per transaction ahead of its batch (see write): ~20 ms of the event loop each. */
const DELETE_PAGE = 200;

export class SqliteDocumentStore implements DocumentStore {
  private readonly db: Database.Database;
  private readonly statements = new Map<string, Statement>();
  /**
   * By table, apart from the cache above: a write would otherwise build its SQL text and hash it
   * to find the statement, for every document (a few µs each on the write path).
   */
  private readonly rows = new Map<string, RowStatements>();
  private readonly tables = new Set<string>();
  /** Which tables have a text index, as of the schema version last read. */
  private readonly text: KnownTextIndexes;
  private readonly applyWrites: (writes: readonly DocumentWrite[], checkpoint: { readonly name: string; readonly value: string } | undefined) => void;
  private readonly deletePage: (table: string, filter: Filter, after: number) => number | null;
  /** One document in a write transaction of its own (see applyWrites), so its terms commit with it. */
  readonly upsertOne: (table: string, doc: Doc) => void;
  private readonly applyReset: (tables: readonly string[], checkpointName: string) => void;

  constructor(options: SqliteDocumentStoreOptions) {
    this.db = openPrivateDatabase(options.path, 'documents');
    this.db.pragma('journal_mode = WAL');
    this.db.pragma(`synchronous = ${options.durability === 'full' ? 'FULL' : 'NORMAL'}`);
    // Deleted rows are overwritten with zeros in the main file; purgeDeleted() handles the WAL.
    this.db.pragma('secure_delete = ON');
    this.db.pragma('busy_timeout = 5000');
    // A JS function rather than lower()/LIKE, which fold ASCII only; MongoDB's /i folds Unicode.
    this.db.function('lore_icontains', { deterministic: true }, (haystack: unknown, needle: unknown) =>
      typeof haystack === 'string' && typeof needle === 'string' && haystack.toLowerCase().includes(needle.toLowerCase()) ? 1 : 0,
    );
    this.db.exec(`CREATE TABLE IF NOT EXISTS ${CHECKPOINTS} (name TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT`);
    this.db.exec(`CREATE TABLE IF NOT EXISTS ${TEXT_INDEXES} (collection TEXT PRIMARY KEY, field TEXT NOT NULL) STRICT`);
    this.text = new KnownTextIndexes(this.db, TEXT_INDEXES);

    // Every write transaction here is IMMEDIATE: the write lock first, waiting out busy_timeout,
    // then the schema read. A deferred transaction that reads first cannot wait for the lock
    // later (SQLITE_BUSY at once), and the text indexes it decided on could change before its
    // first write.
    const applyWrites = this.db.transaction((writes: readonly DocumentWrite[], checkpoint: { readonly name: string; readonly value: string } | undefined) => {
      this.text.syncForWrite();
      for (const write of writes) {
        const table = tableName(write.collection);
        switch (write.op) {
          case 'upsert':
            this.upsertRow(table, write.doc);
            break;
          case 'delete':
            this.deleteRow(table, write.id);
            break;
          case 'deleteMany':
            this.deleteRows(table, write.filter);
            break;
        }
      }
      if (checkpoint) {
        this.run(UPSERT_CHECKPOINT, [checkpoint.name, checkpoint.value]);
      }
    });
    this.applyWrites = (writes, checkpoint) => applyWrites.immediate(writes, checkpoint);
    const deletePage = this.db.transaction((table: string, filter: Filter, after: number) => {
      this.text.syncForWrite();
      return this.deleteRowsPage(table, filter, after);
    });
    this.deletePage = (table, filter, after) => deletePage.immediate(table, filter, after);
    const applyUpsert = this.db.transaction((table: string, doc: Doc) => {
      this.text.syncForWrite();
      this.upsertRow(table, doc);
    });
    this.upsertOne = (table, doc) => applyUpsert.immediate(table, doc);
    const applyReset = this.db.transaction((tables: readonly string[], checkpointName: string) => {
      for (const table of tables) {
        const field = this.textField(table);
        if (field === undefined) {
          this.run(`DELETE FROM ${table}`, []);
          continue;
        }
        // Emptying the text index whole is far cheaper than its delete trigger row by row
        // (seconds per 100k documents under secure-delete); the trigger is back before commit.
        const { fts, dropDeleteTrigger, deleteTrigger } = textIndexParts(table, field);
        this.db.exec(dropDeleteTrigger);
        this.run(`INSERT INTO ${fts} (${fts}) VALUES ('delete-all')`, []);
        this.run(`DELETE FROM ${table}`, []);
        this.db.exec(deleteTrigger);
      }
      this.run(`DELETE FROM ${CHECKPOINTS} WHERE name = ?`, [checkpointName]);
    });
    this.applyReset = (tables, checkpointName) => applyReset.immediate(tables, checkpointName);
  }

  collection<T extends Doc = Doc>(name: string): DocumentCollection<T> {
    return new SqliteDocumentCollection<T>(this, this.ensureTable(name));
  }

  async write(writes: readonly DocumentWrite[], checkpoint?: { readonly name: string; readonly value: string }): Promise<void> {
    // Tables are created before the transaction: a rollback would undo the DDL but not our memo of it.
    for (const write of writes) this.ensureTable(write.collection);
    // A deleteMany of thousands of documents (a content's 24,000 chunk records) took ~0.4 s in one
    // statement, on the event loop every request shares: such documents go first, DELETE_PAGE a
    // transaction with a turn between, and the batch after them with its checkpoint (a crash in
    // between leaves the checkpoint where it was, and deleting again is idempotent).
    for (const write of writes) {
      if (write.op !== 'deleteMany') continue;
      // Pages by rowid, from where the last one stopped: a filter no index serves scans the table once, not once a page.
      for (let after = this.deletePage(tableName(write.collection), write.filter, -1); after !== null; after = this.deletePage(tableName(write.collection), write.filter, after)) {
        await nextTurn();
      }
    }
    return settled(() => {
      // A deleteMany may remove a whole collection's documents in one statement (see withTempFilesOnDisk).
      if (writes.some((write) => write.op === 'deleteMany')) withTempFilesOnDisk(this.db, () => this.applyWrites(writes, checkpoint));
      else this.applyWrites(writes, checkpoint);
    });
  }

  getCheckpoint(name: string): Promise<string | null> {
    return settled(() => {
      const value = this.prepare(`SELECT value FROM ${CHECKPOINTS} WHERE name = ?`).pluck(true).get(name);
      return typeof value === 'string' ? value : null;
    });
  }

  reset(collections: readonly string[], checkpointName: string): Promise<void> {
    return settled(() => {
      const tables = collections.map((name) => this.ensureTable(name));
      this.applyReset(tables, checkpointName);
    });
  }

  purgeDeleted(): Promise<void> {
    return settled(() => {
      // TRUNCATE copies every WAL frame into the main file (where secure_delete zeroed the
      // deleted cells) and cuts the WAL to zero bytes, so no old page image survives there.
      // Text indexes need nothing more: their FTS5 'secure-delete' option removes a deleted
      // document's terms from the index segments at once, rather than leaving them until a
      // merge, and the freed space is zeroed like any other.
      const result = this.db.pragma('wal_checkpoint(TRUNCATE)') as Array<{ busy: number }>;
      if (result[0]?.busy) throw new Error('purgeDeleted: WAL checkpoint blocked by another connection; retry');
    });
  }

  close(): Promise<void> {
    return settled(() => {
      this.statements.clear();
      this.rows.clear();
      this.text.forget();
      if (this.db.open) this.db.close();
    });
  }

  // ---- used by collections and by write() ----

  prepare(sql: string): Statement {
    let statement = this.statements.get(sql);
    if (statement) {
      // Re-insert to mark as recently used: Map iteration order is insertion order.
      this.statements.delete(sql);
    } else {
      statement = this.db.prepare<SqlValue[]>(sql);
      if (this.statements.size >= STATEMENT_CACHE_SIZE) {
        const oldest = this.statements.keys().next();
        if (!oldest.done) this.statements.delete(oldest.value);
      }
    }
    this.statements.set(sql, statement);
    return statement;
  }

  run(sql: string, params: readonly SqlValue[]): number {
    return this.prepare(sql).run(...params).changes;
  }

  /** The row statements of a docs table (one that exists: see ensureTable). */
  rowStatements(table: string): RowStatements {
    let statements = this.rows.get(table);
    if (statements === undefined) {
      statements = {
        upsert: this.db.prepare<SqlValue[]>(`INSERT INTO ${table} (id, body) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET body = excluded.body`),
        delete: this.db.prepare<SqlValue[]>(`DELETE FROM ${table} WHERE id = ?`),
        get: this.db.prepare<SqlValue[]>(`SELECT body FROM ${table} WHERE id = ?`).pluck(true),
      };
      this.rows.set(table, statements);
    }
    return statements;
  }

  /** Inside a write transaction that has synced the schema (KnownTextIndexes.syncForWrite). */
  upsertRow(table: string, doc: Doc): void {
    if (typeof doc.id !== 'string' || doc.id.length === 0) throw new Error('a document needs a non-empty string id');
    const body = JSON.stringify(doc);
    const textIndex = this.text.of(table);
    if (textIndex === null) {
      this.rowStatements(table).upsert.run(doc.id, body);
      return;
    }
    this.text.rowsOf(table, textIndex).upsert(doc.id, body);
  }

  deleteRow(table: string, id: string): boolean {
    return this.rowStatements(table).delete.run(id).changes > 0;
  }

  /**
   * Deletes DELETE_PAGE of the documents `filter` matches after rowid `after`, when it matches
   * more (fewer are left to the batch); the last rowid it deleted, or null when it deleted none.
   */
  deleteRowsPage(table: string, filter: Filter, after: number): number | null {
    const translator = this.translator(table);
    const where = translator.filter(filter);
    const sql = `SELECT rowid FROM ${this.source(table, translator)} WHERE rowid > ? AND (${where}) ORDER BY rowid LIMIT ${DELETE_PAGE + 1}`;
    const rowids = this.prepare(sql).pluck(true).all(after, ...translator.params) as number[];
    if (rowids.length <= DELETE_PAGE) return null;
    const page = rowids.slice(0, DELETE_PAGE);
    this.run(`DELETE FROM ${table} WHERE rowid IN (${page.map(() => '?').join(', ')})`, page);
    return page[page.length - 1] ?? null;
  }

  deleteRows(table: string, filter: Filter): number {
    const translator = this.translator(table);
    const where = translator.filter(filter);
    return this.run(`DELETE FROM ${this.source(table, translator)} WHERE ${where}`, translator.params);
  }

  /**
   * The table to read, given a translated filter. Without statistics SQLite cannot tell how
   * selective a `$text` is and prefers any index on the other conditions; for a selective
   * search, NOT INDEXED leaves it the rowid lookups from the FTS5 result instead.
   */
  source(table: string, translator: SqliteQueryTranslator): string {
    const match = translator.textMatch;
    const fts = match === undefined ? undefined : this.textTable(table);
    if (match === undefined || fts === undefined) return table;
    const matches = this.prepare(`SELECT count(*) FROM (SELECT 1 FROM ${fts} WHERE ${fts} MATCH ? LIMIT ${FEW_TEXT_MATCHES + 1})`).pluck(true).get(match);
    return Number(matches) <= FEW_TEXT_MATCHES ? `${table} NOT INDEXED` : table;
  }

  translator(table: string): SqliteQueryTranslator {
    return new SqliteQueryTranslator(() => this.textTable(table));
  }

  /** The FTS5 table of a docs table, or undefined when it has no text index. */
  textTable(table: string): string | undefined {
    this.text.sync();
    return this.text.of(table)?.fts;
  }

  textField(table: string): string | undefined {
    return this.text.field(table);
  }

  /** Creates the FTS5 table, its triggers and registry entry, and indexes existing rows, in one transaction. */
  createTextIndex(table: string, field: string): void {
    this.db.transaction(() => {
      const existing = this.textField(table);
      if (existing === field) return;
      if (existing !== undefined) throw new Error(`collection ${table.slice('docs_'.length)} already has a text index on ${existing}; a collection has at most one`);
      const parts = textIndexParts(table, field);
      for (const sql of [...parts.create, parts.deleteTrigger, parts.backfill]) this.db.exec(sql);
      this.run(`INSERT INTO ${TEXT_INDEXES} (collection, field) VALUES (?, ?)`, [table, field]);
    }).immediate();
  }

  private ensureTable(collection: string): string {
    const table = tableName(collection);
    if (!this.tables.has(table)) {
      this.db.exec(`CREATE TABLE IF NOT EXISTS ${table} (id TEXT PRIMARY KEY, body TEXT NOT NULL) STRICT`);
      this.tables.add(table);
    }
    return table;
  }
}

function tableName(collection: string): string {
  assertCollectionName(collection);
  return `docs_${collection}`;
}
