import { createHash } from 'node:crypto';
import { settled } from '@lore/platform/kernel';
import type { Doc, DocumentCollection, Filter, FindOptions, Page } from '@lore/platform/documents/port';
import { assertFieldPath, cursorAfter, planFind } from '@lore/platform/documents/port';
import { valueSql } from './sqlite-query.translator';
import type { SqliteDocumentStore } from './sqlite-document-store.adapter';

/** One collection of the embedded read-model store: its table's reads, single writes and indexes. */
export class SqliteDocumentCollection<T extends Doc> implements DocumentCollection<T> {
  constructor(
    private readonly store: SqliteDocumentStore,
    private readonly table: string,
  ) {}

  get(id: string): Promise<T | null> {
    return settled(() => {
      const body = this.store.rowStatements(this.table).get.get(id);
      return typeof body === 'string' ? parse<T>(body) : null;
    });
  }

  find(options: FindOptions = {}): Promise<Page<T>> {
    return settled(() => {
      const { keys, limit, position } = planFind(options);

      const translator = this.store.translator(this.table);
      const where = [translator.filter(options.filter)];
      // Keys the filter holds to one value order nothing, and SQLite does not see that for an
      // expression: ordered by them, it sorted every match of a page (26,000 chunks of a content,
      // for each page of 200). Left out, the rest are read off an index that starts with them.
      const varying = keys.flatMap((key, i) => (fixedByFilter(options.filter, key.field) ? [] : [i]));
      const ordered = varying.length > 0 ? varying : [keys.length - 1];
      if (position) where.push(translator.keyset(ordered.map((i) => keys[i]!), ordered.map((i) => position[i] ?? null)));
      const order = translator.orderBy(ordered.map((i) => keys[i]!));
      // One extra row tells whether another page exists without a second query.
      const params = [...translator.params, limit === undefined ? -1 : limit + 1, position ? 0 : (options.skip ?? 0)];
      const sql = `SELECT body FROM ${this.store.source(this.table, translator)} WHERE ${where.map((part) => `(${part})`).join(' AND ')} ORDER BY ${order} LIMIT ? OFFSET ?`;
      const items = this.store
        .prepare(sql)
        .pluck(true)
        .all(...params)
        .map((body) => parse<T>(body as string));

      const hasMore = limit !== undefined && items.length > limit;
      if (hasMore) items.length = limit;
      const last = items.at(-1);
      return { items, nextCursor: hasMore && last ? cursorAfter(last, keys, options.filter) : null };
    });
  }

  count(filter?: Filter): Promise<number> {
    return settled(() => {
      const translator = this.store.translator(this.table);
      const where = translator.filter(filter);
      const count = this.store.prepare(`SELECT count(*) FROM ${this.store.source(this.table, translator)} WHERE ${where}`).pluck(true).get(...translator.params);
      return Number(count);
    });
  }

  upsert(doc: T): Promise<void> {
    return settled(() => {
      this.store.upsertOne(this.table, doc);
    });
  }

  delete(id: string): Promise<boolean> {
    return settled(() => this.store.deleteRow(this.table, id));
  }

  deleteMany(filter: Filter): Promise<number> {
    return settled(() => this.store.deleteRows(this.table, filter));
  }

  ensureIndex(fields: readonly string[]): Promise<void> {
    return settled(() => {
      if (fields.length === 0) throw new Error('ensureIndex needs at least one field');
      fields.forEach(assertFieldPath);
      // The primary key already indexes id.
      if (fields.length === 1 && fields[0] === 'id') return;
      // Every keyset order ends with id (the rowid is not it): an index ending with id serves a
      // page off the index, where one without it sorted every match. An index of a file from
      // before is replaced.
      const indexed = fields.at(-1) === 'id' ? fields : [...fields, 'id'];
      const name = (of: readonly string[]): string => `ix_${this.table}_${createHash('sha256').update(of.join(',')).digest('hex').slice(0, 16)}`;
      // Expressions must be the very text queries use (valueSql) for SQLite to match the index.
      this.store.run(`CREATE INDEX IF NOT EXISTS ${name(indexed)} ON ${this.table} (${indexed.map(valueSql).join(', ')})`, []);
      if (indexed !== fields) this.store.run(`DROP INDEX IF EXISTS ${name(fields)}`, []);
    });
  }

  ensureTextIndex(field: string): Promise<void> {
    return settled(() => {
      assertFieldPath(field);
      if (field === 'id') throw new Error('ensureTextIndex: id cannot be the text-indexed field');
      this.store.createTextIndex(this.table, field);
    });
  }
}

/** Whether `filter` holds `field` to one value: a top-level equality to a string, number or boolean (what the translator compares with `=`). */
function fixedByFilter(filter: Filter | undefined, field: string): boolean {
  const condition: unknown = filter?.[field];
  return typeof condition === 'string' || typeof condition === 'number' || typeof condition === 'boolean';
}

function parse<T extends Doc>(body: string): T {
  return JSON.parse(body) as T;
}
