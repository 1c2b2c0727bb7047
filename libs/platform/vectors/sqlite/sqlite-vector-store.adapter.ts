import { setImmediate as nextTurn } from 'node:timers/promises';
/**
 * Embedded vector index: SQLite with sqlite-vec (dense KNN on `vec0` tables partitioned by
 * collection) and a keyword index of our own (BM25 with block-max MaxScore, `keyword-index.ts`), one set of tables per index (`sqlite-vector-schema.ts`), in
 * one file beside a checkpoint table, so that a projection's batch and its checkpoint
 * commit in one transaction. Synchronous better-sqlite3 calls behind the async port, as
 * in the document store: short in-process work, one connection, trivial write ordering.
 */
import type Database from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import { notFound, compileFilter } from '@lore/platform/kernel';
import { openPrivateDatabase, withTempFilesOnDisk } from '@lore/platform/sqlite';
import type { Checkpoint, VectorIndex, VectorIndexDefinition, VectorStore, VectorWrite } from '@lore/platform/vectors/port';
import { assertId, assertIndexDefinition, assertIndexName, assertPayload, assertPoint, assertScope, sameDefinition } from '@lore/platform/vectors/port';
import { DATETIME_FUNCTION, datetimeWithin } from './sqlite-filter.translator';
import { CHECKPOINTS, createIndexSql, createKeywordSql, dropIndexSql, REGISTRY, STORE_DDL, tablesOf } from './sqlite-vector-schema';
import type { Param } from './sqlite-vector-schema';
import { SqliteVectorIndex } from './sqlite-vector-index';
import { SqliteGraphs } from './sqlite-graphs';
import type { GraphOptions } from './sqlite-graphs';
import { KeywordIndex } from './keyword-index';
import { PointWrites } from './sqlite-point-writes';
import type { PlannedDeleteWhere, PlannedWrite, WriteEffects } from './sqlite-point-writes';

export interface SqliteVectorStoreOptions {
  /** File path, or ':memory:' for a private in-memory database. */
  readonly path: string;
  /** As for the document store: 'normal' (default) suits read models, which are rebuildable. */
  readonly durability?: 'full' | 'normal';
  /**
   * Bytes of the file SQLite reads through mmap (default 2 GiB, SQLite's ceiling; 0 turns it
   * off). KNN scans read every vector of a partition; through mmap they skip the page cache's
   * copies, which halves a 100k-vector scan here (see vector-index.manual.ts).
   */
  readonly mmapBytes?: number;
  /**
   * Approximate dense search for big collections: an HNSW graph per collection, built and kept
   * in the background (`sqlite-graphs.ts`); `false` keeps every search exact. Defaults:
   * GRAPH_DEFAULTS, chosen by tools/bench/search.bench.mjs (see README).
   */
  readonly graphs?: GraphOptions | false;
}

const DEFAULT_MMAP_BYTES = 2 ** 31 - 2 ** 16;

/** Synchronous, like better-sqlite3 itself. */
export function openSqliteVectorStore(options: SqliteVectorStoreOptions): VectorStore {
  return new SqliteVectorStore(options);
}

type Statement = Database.Statement<Param[]>;
const STATEMENT_CACHE_SIZE = 500;
/** Points a large deletion removes per transaction (see deleteAheadInPages): ~20 ms of the event loop each. */
const DELETE_PAGE = 200;

export class SqliteVectorStore implements VectorStore {
  readonly db: Database.Database;
  readonly graphs: SqliteGraphs;
  /** The keyword indexes' in-memory side, by index name, loaded on first use (`keywords`). */
  private readonly keywordIndexes = new Map<string, KeywordIndex>();
  private readonly statements = new Map<string, Statement>();
  private readonly definitions = new Map<string, VectorIndexDefinition>();
  private readonly applyWrites: (writes: readonly PlannedWrite[], checkpoint: Checkpoint | undefined, effects: WriteEffects) => void;
  private readonly applyDeletePage: (write: PlannedDeleteWhere, effects: WriteEffects) => boolean;
  private readonly applyReset: (names: readonly string[], checkpointName: string) => void;
  private readonly pointWrites = new PointWrites(this);

  constructor(options: SqliteVectorStoreOptions) {
    this.db = openPrivateDatabase(options.path, 'vectors');
    sqliteVec.load(this.db);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma(`synchronous = ${options.durability === 'full' ? 'FULL' : 'NORMAL'}`);
    // Deleted rows are overwritten with zeros in the main file; purgeDeleted() handles the WAL.
    this.db.pragma('secure_delete = ON');
    this.db.pragma('busy_timeout = 5000');
    this.db.pragma(`mmap_size = ${Math.max(0, Math.floor(options.mmapBytes ?? DEFAULT_MMAP_BYTES))}`);
    this.graphs = new SqliteGraphs(this, options.path === ':memory:' ? null : `${options.path}-graphs`, options.graphs);
    this.db.function(DATETIME_FUNCTION, { deterministic: true }, datetimeWithin);
    for (const sql of STORE_DDL) this.db.exec(sql);
    const rows = this.db.prepare(`SELECT name, dimensions, distance FROM ${REGISTRY}`).all() as VectorIndexDefinition[];
    for (const row of rows) this.definitions.set(row.name, { name: row.name, dimensions: row.dimensions, distance: row.distance });
    for (const name of this.definitions.keys()) this.migrateKeywords(name);
    this.graphs.start([...this.definitions.keys()]);

    this.applyWrites = this.db.transaction((writes: readonly PlannedWrite[], checkpoint: Checkpoint | undefined, effects: WriteEffects) => {
      for (const write of writes) this.pointWrites.apply(write, effects);
      this.graphs.log(effects.changes);
      if (checkpoint) {
        this.run(`INSERT INTO ${CHECKPOINTS} (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value`, [checkpoint.name, checkpoint.value]);
      }
    });
    this.applyDeletePage = this.db.transaction((write: PlannedDeleteWhere, effects: WriteEffects) => {
      const deleted = this.pointWrites.deleteWherePage(write, DELETE_PAGE, effects);
      this.graphs.log(effects.changes);
      return deleted;
    });
    this.applyReset = this.db.transaction((names: readonly string[], checkpointName: string) => {
      // Dropping and recreating is faster than deleting row by row; secure_delete zeroes the freed pages.
      for (const name of names) {
        const definition = this.definitions.get(name);
        if (!definition) continue;
        for (const sql of [...dropIndexSql(name), ...createIndexSql(definition)]) this.db.exec(sql);
      }
      this.run(`DELETE FROM ${CHECKPOINTS} WHERE name = ?`, [checkpointName]);
    });
  }

  async ensureIndex(definition: VectorIndexDefinition): Promise<void> {
    assertIndexDefinition(definition);
    const existing = this.definitions.get(definition.name);
    if (existing) {
      if (!sameDefinition(existing, definition)) {
        throw new Error(`vector index ${definition.name} exists with ${existing.dimensions} dimensions (${existing.distance}), not ${definition.dimensions} (${definition.distance})`);
      }
      return;
    }
    this.db.transaction(() => {
      for (const sql of createIndexSql(definition)) this.db.exec(sql);
      this.run(`INSERT INTO ${REGISTRY} (name, dimensions, distance) VALUES (?, ?, ?)`, [definition.name, definition.dimensions, definition.distance]);
    })();
    this.definitions.set(definition.name, { name: definition.name, dimensions: definition.dimensions, distance: definition.distance });
  }

  async listIndexes(): Promise<VectorIndexDefinition[]> {
    return [...this.definitions.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
  }

  async dropIndex(name: string): Promise<void> {
    assertIndexName(name);
    this.statements.clear();
    this.pointWrites.forgetColumns();
    this.graphs.forget([name]);
    this.forgetKeywords(name);
    // Dropping tables of any size in one transaction (see withTempFilesOnDisk).
    withTempFilesOnDisk(this.db, () =>
      this.db.transaction(() => {
        for (const sql of dropIndexSql(name)) this.db.exec(sql);
        this.run(`DELETE FROM ${REGISTRY} WHERE name = ?`, [name]);
      })(),
    );
    this.definitions.delete(name);
  }

  index(name: string): VectorIndex {
    assertIndexName(name);
    return new SqliteVectorIndex(this, name);
  }

  async write(writes: readonly VectorWrite[], checkpoint?: Checkpoint): Promise<void> {
    // Everything is validated and compiled before the transaction starts.
    const planned = writes.map((write) => this.plan(write));
    await this.deleteAheadInPages(planned);
    this.committed((effects) => this.applyWrites(planned, checkpoint, effects));
  }

  /**
   * A deletion that matches thousands of stored points (a content of 24,000 chunks, a whole
   * collection) took seconds in one transaction, on the event loop every request shares. Such
   * points go first, DELETE_PAGE a transaction with a turn of the event loop between, and the
   * batch as planned after them (with its checkpoint), which deletes what is left and whatever
   * its own earlier writes added. The batch still reads as applied when its last commit is: a
   * crash in between leaves the checkpoint where it was, and deleting again is idempotent.
   */
  private async deleteAheadInPages(planned: readonly PlannedWrite[]): Promise<void> {
    for (const write of planned) {
      if (write.op !== 'deleteWhere') continue;
      while (this.committed((effects) => this.applyDeletePage(write, effects))) await nextTurn();
    }
  }

  /** Runs one transaction collecting its effects; once it commits, the graphs take the changes in. */
  private committed<T>(transaction: (effects: WriteEffects) => T): T {
    const effects: WriteEffects = { changes: [], touched: new Map() };
    let result: T;
    try {
      result = transaction(effects);
    } catch (error) {
      // The transaction rolled back: the keyword postings changed in memory are reloaded from
      // the committed tables on next use (the graphs take changes only after a commit).
      for (const name of [...this.keywordIndexes.keys()]) this.forgetKeywords(name);
      throw error;
    }
    // Committed: the graphs take the changes in (queued; searches read the queue until applied).
    this.graphs.afterCommit(effects.changes, effects.touched);
    return result;
  }

  /** Resolves once every graph is built, loaded and up to date (tests, benchmarks). */
  settled(): Promise<void> {
    return this.graphs.settled();
  }

  /** Settles, then writes every changed graph's snapshot now. */
  flushGraphs(): Promise<void> {
    return this.graphs.flush();
  }

  async getCheckpoint(name: string): Promise<string | null> {
    const value = this.prepare(`SELECT value FROM ${CHECKPOINTS} WHERE name = ?`).pluck(true).get(name);
    return typeof value === 'string' ? value : null;
  }

  async reset(indexes: readonly string[], checkpointName: string): Promise<void> {
    indexes.forEach(assertIndexName);
    this.statements.clear();
    this.pointWrites.forgetColumns();
    this.graphs.forget(indexes);
    for (const name of indexes) this.forgetKeywords(name);
    withTempFilesOnDisk(this.db, () => this.applyReset(indexes, checkpointName));
  }

  async purgeDeleted(): Promise<void> {
    // The keyword index deleted the rows' term records and unused vocabulary, and secure_delete
    // zeroed freed cells; TRUNCATE copies every WAL frame into the main file and cuts the WAL
    // to zero bytes, so no old page image survives there either.
    const result = this.db.pragma('wal_checkpoint(TRUNCATE)') as Array<{ busy: number }>;
    if (result[0]?.busy) throw new Error('purgeDeleted: WAL checkpoint blocked by another connection; retry');
  }

  async close(): Promise<void> {
    for (const name of [...this.keywordIndexes.keys()]) this.forgetKeywords(name);
    if (this.db.open) await this.graphs.close();
    this.statements.clear();
    if (this.db.open) this.db.close();
  }

  // ---- shared with SqliteVectorIndex ----

  /** Drops the in-memory keyword index of `name` (reloaded from its tables on next use). */
  private forgetKeywords(name: string): void {
    this.keywordIndexes.get(name)?.dispose();
    this.keywordIndexes.delete(name);
  }

  /** The keyword index of `name`, loaded from its tables on first use. */
  keywords(name: string): KeywordIndex {
    let index = this.keywordIndexes.get(name);
    if (!index) {
      index = KeywordIndex.load(this, tablesOf(name));
      this.keywordIndexes.set(name, index);
    }
    return index;
  }

  definition(name: string): VectorIndexDefinition {
    const definition = this.definitions.get(name);
    if (!definition) throw notFound(`vector index ${name}`);
    return definition;
  }

  prepare(sql: string): Statement {
    let statement = this.statements.get(sql);
    if (statement) {
      this.statements.delete(sql);
    } else {
      statement = this.db.prepare<Param[]>(sql);
      if (this.statements.size >= STATEMENT_CACHE_SIZE) {
        const oldest = this.statements.keys().next();
        if (!oldest.done) this.statements.delete(oldest.value);
      }
    }
    this.statements.set(sql, statement);
    return statement;
  }

  run(sql: string, params: readonly Param[]): Database.RunResult {
    return this.prepare(sql).run(...params);
  }

  // ---- writes ----

  private plan(write: VectorWrite): PlannedWrite {
    switch (write.op) {
      case 'upsert': {
        const definition = this.definition(write.index);
        for (const point of write.points) assertPoint(point, definition);
        return { op: 'upsert', tables: tablesOf(write.index), points: write.points, definition };
      }
      case 'delete':
        this.definition(write.index);
        write.ids.forEach((id) => assertId(id));
        return { op: 'delete', name: write.index, tables: tablesOf(write.index), ids: write.ids };
      case 'deleteWhere': {
        assertScope(write);
        const names = write.index === undefined ? [...this.definitions.keys()] : [this.definition(write.index).name];
        return { op: 'deleteWhere', tables: names.map(tablesOf), names, collections: write.collections, filter: compileFilter(write.filter) };
      }
      case 'setPayload':
        this.definition(write.index);
        write.ids.forEach((id) => assertId(id));
        assertPayload(write.payload, true);
        return { op: 'setPayload', name: write.index, tables: tablesOf(write.index), ids: write.ids, payload: write.payload };
    }
  }

  /**
   * Files written before the keyword index hold an FTS5 table instead: build the keyword tables
   * from the stored texts (tokenising each once), then drop the FTS5 table (secure_delete zeroes
   * its pages), in one transaction, so an interrupted upgrade simply runs again on next open.
   */
  private migrateKeywords(name: string): void {
    const tables = tablesOf(name);
    const exists = (table: string): boolean => this.db.prepare(`SELECT 1 FROM sqlite_master WHERE name = ?`).pluck(true).get(table) !== undefined;
    if (exists(tables.kwDocs)) return;
    withTempFilesOnDisk(this.db, () => this.db.transaction(() => {
      for (const sql of createKeywordSql(name)) this.db.exec(sql);
      const index = KeywordIndex.empty(this, tables);
      const rows = this.db.prepare(`SELECT p.rowid, p.collection_id, t.text FROM ${tables.points} AS p JOIN ${tables.text} AS t ON t.rowid = p.rowid ORDER BY p.rowid`).raw(true).all() as Array<[number, string, string]>;
      for (const [rowid, collection, text] of rows) index.add(rowid, collection, text);
      this.db.exec(`DROP TABLE IF EXISTS ${tables.legacyFts}`);
      this.keywordIndexes.set(name, index);
    })());
  }
}
