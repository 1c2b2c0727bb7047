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
      if (position) where.push(translator.keyset(keys, position));
      const order = translator.orderBy(keys);
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
      // Expressions must be the very text queries use (valueSql) for SQLite to match the index.
      const name = `ix_${this.table}_${createHash('sha256').update(fields.join(',')).digest('hex').slice(0, 16)}`;
      this.store.run(`CREATE INDEX IF NOT EXISTS ${name} ON ${this.table} (${fields.map(valueSql).join(', ')})`, []);
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

function parse<T extends Doc>(body: string): T {
  return JSON.parse(body) as T;
}
