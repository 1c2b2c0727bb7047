/**
 * Applying validated writes to one index's tables inside the store's transaction: points,
 * texts, the keyword index's postings and the vec0 rows, collecting what the HNSW graphs must
 * take in once the transaction commits.
 */
import type Database from 'better-sqlite3';
import type { FilterNode } from '@lore/platform/kernel';
import type { PointPayload, VectorIndexDefinition, VectorPoint } from '@lore/platform/vectors/port';
import { storedVector } from '@lore/platform/vectors/port';
import { filterSql, SqlParams } from './sqlite-filter.translator';
import { hasClusterColumn, tablesOf, vectorBlob } from './sqlite-vector-schema';
import type { IndexTables, Param } from './sqlite-vector-schema';
import type { PointChange } from './sqlite-graphs';
import type { KeywordIndex } from './keyword-index';

/** What the writes need of the store: its statement cache and keyword indexes. */
interface StoreAccess {
  prepare(sql: string): Database.Statement<Param[]>;
  run(sql: string, params: readonly Param[]): Database.RunResult;
  keywords(name: string): KeywordIndex;
}

/** A write after validation, ready to apply inside the transaction. */
export type PlannedWrite =
  | { readonly op: 'upsert'; readonly tables: IndexTables; readonly points: readonly VectorPoint[]; readonly definition: VectorIndexDefinition }
  | { readonly op: 'delete'; readonly name: string; readonly tables: IndexTables; readonly ids: readonly string[] }
  | PlannedDeleteWhere
  | { readonly op: 'setPayload'; readonly name: string; readonly tables: IndexTables; readonly ids: readonly string[]; readonly payload: Partial<PointPayload> };

export interface PlannedDeleteWhere {
  readonly op: 'deleteWhere';
  readonly tables: readonly IndexTables[];
  readonly names: readonly string[];
  readonly collections: readonly string[];
  readonly filter: FilterNode;
}

interface ExistingRow {
  readonly rowid: number;
  readonly collection_id: string;
  readonly text: string;
}

/** What one `write` changed: per point for the graphs, per index the collections whose size changed. */
export interface WriteEffects {
  readonly changes: PointChange[];
  readonly touched: Map<string, Set<string>>;
}


export class PointWrites {
  /** Whether an index's vec0 table has the earlier IVF layer's `cluster` column (new points get 0). */
  private readonly clusterColumns = new Map<string, boolean>();

  constructor(private readonly store: StoreAccess) {}

  /** After an index's tables were dropped or recreated. */
  forgetColumns(): void {
    this.clusterColumns.clear();
  }

  /** `effects`: every point changed, and per index the collections whose size may have grown or reached 0 (graph upkeep). */
  apply(write: PlannedWrite, effects: WriteEffects): void {
    switch (write.op) {
      case 'upsert':
        for (const point of write.points) this.upsertPoint(write.tables, point, write.definition, effects.changes);
        touch(effects, write.definition.name, write.points.map((p) => p.collectionId));
        return;
      case 'delete':
        for (const id of write.ids) {
          const row = this.existing(write.tables, id);
          if (row) this.deleteRow(write.name, write.tables, row, effects.changes);
        }
        return;
      case 'deleteWhere':
        write.names.forEach((name, i) => {
          const tables = write.tables[i];
          if (tables) this.deleteWhere(name, tables, write.collections, write.filter, effects.changes);
        });
        for (const name of write.names) touch(effects, name, write.collections);
        return;
      case 'setPayload':
        for (const id of write.ids) this.setPayload(write.tables, id, write.payload);
        return;
    }
  }

  private existing(tables: IndexTables, id: string): ExistingRow | undefined {
    return this.store.prepare(`SELECT p.rowid AS rowid, p.collection_id AS collection_id, t.text AS text FROM ${tables.points} AS p JOIN ${tables.text} AS t ON t.rowid = p.rowid WHERE p.id = ?`).get(id) as
      | ExistingRow
      | undefined;
  }

  private upsertPoint(tables: IndexTables, point: VectorPoint, definition: VectorIndexDefinition, changes: PointChange[]): void {
    const { payload } = point;
    const columns: Param[] = [point.collectionId, payload.content_id, payload.source, payload.chunk_index, JSON.stringify(payload.tags), JSON.stringify(payload.metadata)];
    const row = this.existing(tables, point.id);
    let rowid: number;
    if (row) {
      rowid = row.rowid;
      // Moved to another collection: it leaves the old collection's graph.
      if (row.collection_id !== point.collectionId) changes.push({ index: definition.name, collection: row.collection_id, rowid, vector: null });
      this.store.run(`UPDATE ${tables.points} SET collection_id = ?, content_id = ?, source = ?, chunk_index = ?, tags = ?, metadata = ? WHERE rowid = ?`, [...columns, rowid]);
      if (row.text !== point.text) this.store.run(`UPDATE ${tables.text} SET text = ? WHERE rowid = ?`, [point.text, rowid]);
      if (row.text !== point.text || row.collection_id !== point.collectionId) {
        const keywords = this.store.keywords(definition.name);
        keywords.remove(rowid, row.collection_id);
        keywords.add(rowid, point.collectionId, point.text);
      }
      // vec0 cannot move a row to another partition, and the vector changes anyway: replace the row.
      this.store.run(`DELETE FROM ${tables.knn} WHERE rowid = ?`, [BigInt(rowid)]);
    } else {
      const inserted = this.store.run(`INSERT INTO ${tables.points} (collection_id, content_id, source, chunk_index, tags, metadata, id) VALUES (?, ?, ?, ?, ?, ?, ?)`, [...columns, point.id]);
      rowid = Number(inserted.lastInsertRowid);
      this.store.run(`INSERT INTO ${tables.text} (rowid, text) VALUES (?, ?)`, [rowid, point.text]);
      this.store.keywords(definition.name).add(rowid, point.collectionId, point.text);
    }
    const vector = storedVector(point.vector, definition.distance);
    const values: Param[] = [BigInt(rowid), point.collectionId, vectorBlob(vector), payload.content_id, payload.source ?? '', BigInt(payload.chunk_index)];
    if (this.hasClusterColumn(definition.name)) {
      this.store.run(`INSERT INTO ${tables.knn} (rowid, collection_id, embedding, content_id, source, chunk_index, cluster) VALUES (?, ?, ?, ?, ?, ?, 0)`, values);
    } else {
      this.store.run(`INSERT INTO ${tables.knn} (rowid, collection_id, embedding, content_id, source, chunk_index) VALUES (?, ?, ?, ?, ?, ?)`, values);
    }
    changes.push({ index: definition.name, collection: point.collectionId, rowid, vector });
  }

  private hasClusterColumn(name: string): boolean {
    let found = this.clusterColumns.get(name);
    if (found === undefined) {
      found = hasClusterColumn(this.store.prepare(`SELECT sql FROM sqlite_master WHERE name = ?`).pluck(true).get(tablesOf(name).knn) as string | undefined);
      this.clusterColumns.set(name, found);
    }
    return found;
  }

  private deleteRow(name: string, tables: IndexTables, row: ExistingRow, changes: PointChange[]): void {
    changes.push({ index: name, collection: row.collection_id, rowid: row.rowid, vector: null });
    this.store.keywords(name).remove(row.rowid, row.collection_id);
    this.store.run(`DELETE FROM ${tables.knn} WHERE rowid = ?`, [BigInt(row.rowid)]);
    this.store.run(`DELETE FROM ${tables.text} WHERE rowid = ?`, [row.rowid]);
    this.store.run(`DELETE FROM ${tables.points} WHERE rowid = ?`, [row.rowid]);
  }

  /**
   * Deletes `page` of the points a deleteWhere matches in each index, where it matches more than
   * `page` (fewer are left to the write itself); returns whether it deleted any.
   */
  deleteWherePage(write: PlannedDeleteWhere, page: number, effects: WriteEffects): boolean {
    let deleted = false;
    write.names.forEach((name, i) => {
      const tables = write.tables[i];
      if (tables === undefined) return;
      const rows = this.matching(tables, write.collections, write.filter, page + 1);
      if (rows.length <= page) return;
      for (const row of rows.slice(0, page)) this.deleteRow(name, tables, row, effects.changes);
      touch(effects, name, write.collections);
      deleted = true;
    });
    return deleted;
  }

  private deleteWhere(name: string, tables: IndexTables, collections: readonly string[], filter: FilterNode, changes: PointChange[]): void {
    for (const row of this.matching(tables, collections, filter)) this.deleteRow(name, tables, row, changes);
  }

  private matching(tables: IndexTables, collections: readonly string[], filter: FilterNode, limit?: number): ExistingRow[] {
    if (filter.kind === 'none') return [];
    const params = new SqlParams();
    const scope = `p.collection_id IN (${params.list(collections)})`;
    const where = filter.kind === 'all' ? scope : `${scope} AND ${filterSql(filter, params)}`;
    const limited = limit === undefined ? '' : ` LIMIT ${limit}`;
    return this.store.prepare(`SELECT p.rowid AS rowid, p.collection_id AS collection_id FROM ${tables.points} AS p WHERE ${where}${limited}`).all(...params.values) as ExistingRow[];
  }

  private setPayload(tables: IndexTables, id: string, payload: Partial<PointPayload>): void {
    const row = this.existing(tables, id);
    if (!row) return;
    const assignments: string[] = [];
    const values: Param[] = [];
    const knnAssignments: string[] = [];
    const knnValues: Param[] = [];
    const set = (column: string, value: Param, knnValue?: Param): void => {
      assignments.push(`${column} = ?`);
      values.push(value);
      if (knnValue !== undefined) {
        knnAssignments.push(`${column} = ?`);
        knnValues.push(knnValue);
      }
    };
    if (payload.content_id !== undefined) set('content_id', payload.content_id, payload.content_id);
    if (payload.source !== undefined) set('source', payload.source, payload.source ?? '');
    if (payload.chunk_index !== undefined) set('chunk_index', payload.chunk_index, BigInt(payload.chunk_index));
    if (payload.tags !== undefined) set('tags', JSON.stringify(payload.tags));
    if (payload.metadata !== undefined) set('metadata', JSON.stringify(payload.metadata));
    if (assignments.length > 0) this.store.run(`UPDATE ${tables.points} SET ${assignments.join(', ')} WHERE rowid = ?`, [...values, row.rowid]);
    if (knnAssignments.length > 0) this.store.run(`UPDATE ${tables.knn} SET ${knnAssignments.join(', ')} WHERE rowid = ?`, [...knnValues, BigInt(row.rowid)]);
  }
}

/** Marks the collections of index `name` whose size changed (graph upkeep after the commit). */
function touch(effects: WriteEffects, name: string, collections: readonly string[]): void {
  const set = effects.touched.get(name) ?? new Set<string>();
  for (const c of collections) set.add(c);
  effects.touched.set(name, set);
}
