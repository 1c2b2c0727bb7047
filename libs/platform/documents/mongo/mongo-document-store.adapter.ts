/**
 * Distributed read-model store on MongoDB. Documents keep the port's `id` as `_id`, so the
 * primary index serves lookups and the cursor tie-breaker; `_id` never leaves the adapter.
 */
import { MongoClient, MongoServerError } from 'mongodb';
import type { AnyBulkWriteOperation, Collection, Db, IndexDescriptionInfo } from 'mongodb';
import type { Doc, DocumentCollection, DocumentStore, DocumentWrite, Filter, FindOptions, Page } from '@lore/platform/documents/port';
import { assertCollectionName, assertFieldPath, cursorAfter, planFind } from '@lore/platform/documents/port';
import { andAlso, mongoField, translateFilter, translateKeyset, translateSort, usesText } from './mongo-query.translator';

export interface MongoDocumentStoreOptions {
  readonly url: string;
  readonly database: string;
}

/** Connects eagerly so that a wrong URL fails at startup rather than on the first request. */
export async function openMongoDocumentStore(options: MongoDocumentStoreOptions): Promise<DocumentStore> {
  // ignoreUndefined: an undefined field is absent, as JSON (and the SQLite adapter) has it, not null.
  const client = new MongoClient(options.url, { ignoreUndefined: true });
  await client.connect();
  return new MongoDocumentStore(client, client.db(options.database));
}

/** How a document sits in MongoDB: the port's fields, with `id` moved to `_id`. */
interface StoredDoc {
  _id: string;
  [field: string]: unknown;
}

interface CheckpointDoc {
  _id: string;
  value: string;
}

/** Leading underscore: collection names from the port cannot start with one, so no clash. */
const CHECKPOINTS = '_checkpoints';
/**
 * The per-document language field of text indexes: MongoDB's default, `language`, would let a
 * document's own `language` field pick the stemmer, or reject the write when it names none.
 */
const LANGUAGE_OVERRIDE = '_lore_text_language';
/** Server error code of listIndexes on a collection that does not exist (yet). */
const NAMESPACE_NOT_FOUND = 26;

class MongoDocumentStore implements DocumentStore {
  private readonly checkpoints: Collection<CheckpointDoc>;
  /** Collection → its text-indexed field, once seen; indexes are never dropped by the adapter. */
  private readonly textFields = new Map<string, string>();

  constructor(
    private readonly client: MongoClient,
    private readonly db: Db,
  ) {
    this.checkpoints = db.collection<CheckpointDoc>(CHECKPOINTS);
  }

  collection<T extends Doc = Doc>(name: string): DocumentCollection<T> {
    return new MongoDocumentCollection<T>(this.raw(name), this);
  }

  /**
   * Not atomic: MongoDB transactions need a replica set and cost a round trip each, and
   * projections are idempotent, so writes go first and the checkpoint last; a crash in
   * between replays the same events over the same documents.
   */
  async write(writes: readonly DocumentWrite[], checkpoint?: { readonly name: string; readonly value: string }): Promise<void> {
    // Everything is validated and translated before the first write is sent.
    const batches = new Map<string, Array<AnyBulkWriteOperation<StoredDoc>>>();
    for (const write of writes) {
      assertCollectionName(write.collection);
      if (write.op === 'deleteMany' && usesText(write.filter)) await this.assertTextIndex(write.collection);
      const operations = batches.get(write.collection) ?? [];
      operations.push(toOperation(write));
      batches.set(write.collection, operations);
    }
    // Order matters within a collection (ordered bulkWrite); collections are independent of each other.
    for (const [name, operations] of batches) await this.raw(name).bulkWrite(operations, { ordered: true });
    if (checkpoint) await this.checkpoints.updateOne({ _id: checkpoint.name }, { $set: { value: checkpoint.value } }, { upsert: true });
  }

  async getCheckpoint(name: string): Promise<string | null> {
    const found = await this.checkpoints.findOne({ _id: name });
    return found?.value ?? null;
  }

  async reset(collections: readonly string[], checkpointName: string): Promise<void> {
    collections.forEach(assertCollectionName);
    // Checkpoint first: a crash midway then leaves a rebuild from zero over partial data
    // (idempotent), never a checkpoint vouching for documents that are gone.
    await this.checkpoints.deleteOne({ _id: checkpointName });
    for (const name of collections) await this.raw(name).deleteMany({});
  }

  /**
   * Nothing to do here: MongoDB (WiredTiger) reuses and compacts the space of deleted
   * documents itself, and its files are not the adapter's to rewrite. Permanent deletion on
   * this engine rests on crypto-shredding (ARCHITECTURE §3.7) and encrypted storage.
   */
  async purgeDeleted(): Promise<void> {
    return Promise.resolve();
  }

  async close(): Promise<void> {
    await this.client.close();
  }

  /** The field of the collection's text index, read from the server unless already known. */
  async textField(name: string): Promise<string | undefined> {
    const known = this.textFields.get(name);
    if (known !== undefined) return known;
    let indexes: IndexDescriptionInfo[];
    try {
      indexes = await this.raw(name).indexes();
    } catch (error) {
      if (error instanceof MongoServerError && error.code === NAMESPACE_NOT_FOUND) return undefined;
      throw error;
    }
    // A text index's key is { _fts: 'text', _ftsx: 1 }; its fields are the keys of `weights`.
    const text = indexes.find((index) => index.key['_fts'] === 'text');
    if (!text) return undefined;
    const fields = Object.keys(text.weights ?? {});
    const field = fields.length === 1 && fields[0] !== undefined ? fields[0] : fields.join(', ');
    this.textFields.set(name, field);
    return field;
  }

  rememberTextField(name: string, field: string): void {
    this.textFields.set(name, field);
  }

  /**
   * MongoDB itself would answer a `$text` query on a collection without a text index with an
   * error only when the collection exists (an empty result otherwise); checking here makes it
   * the port's clear error in every case.
   */
  async assertTextIndex(name: string): Promise<void> {
    if ((await this.textField(name)) === undefined) {
      throw new Error(`$text needs a text index on collection ${name}: declare its field with ensureTextIndex first`);
    }
  }

  private raw(name: string): Collection<StoredDoc> {
    assertCollectionName(name);
    return this.db.collection<StoredDoc>(name);
  }
}

class MongoDocumentCollection<T extends Doc> implements DocumentCollection<T> {
  constructor(
    private readonly raw: Collection<StoredDoc>,
    private readonly store: MongoDocumentStore,
  ) {}

  async get(id: string): Promise<T | null> {
    const found = await this.raw.findOne({ _id: id });
    return found ? fromStored<T>(found) : null;
  }

  async find(options: FindOptions = {}): Promise<Page<T>> {
    const { keys, limit, position } = planFind(options);

    await this.checkText(options.filter);
    const filter = translateFilter(options.filter);
    const query = position ? andAlso(filter, translateKeyset(keys, position)) : filter;
    let found = this.raw.find(query).sort(translateSort(keys));
    if (!position && options.skip) found = found.skip(options.skip);
    // One extra document tells whether another page exists without a second query.
    if (limit !== undefined) found = found.limit(limit + 1);
    const items = (await found.toArray()).map((raw) => fromStored<T>(raw));

    const hasMore = limit !== undefined && items.length > limit;
    if (hasMore) items.length = limit;
    const last = items.at(-1);
    return { items, nextCursor: hasMore && last ? cursorAfter(last, keys, options.filter) : null };
  }

  async count(filter?: Filter): Promise<number> {
    await this.checkText(filter);
    return this.raw.countDocuments(translateFilter(filter));
  }

  async upsert(doc: T): Promise<void> {
    assertId(doc);
    await this.raw.replaceOne({ _id: doc.id }, toStored(doc), { upsert: true });
  }

  async delete(id: string): Promise<boolean> {
    const result = await this.raw.deleteOne({ _id: id });
    return result.deletedCount > 0;
  }

  async deleteMany(filter: Filter): Promise<number> {
    await this.checkText(filter);
    const result = await this.raw.deleteMany(translateFilter(filter));
    return result.deletedCount;
  }

  async ensureIndex(fields: readonly string[]): Promise<void> {
    if (fields.length === 0) throw new Error('ensureIndex needs at least one field');
    fields.forEach(assertFieldPath);
    // _id is always indexed; createIndex is a no-op when an identical index exists.
    if (fields.length === 1 && fields[0] === 'id') return;
    // Every sort ends with id (resolveSort's tie-break): with _id last, the index serves a
    // keyset page as read, where without it each page sorted every match (a purge's pages of
    // 100 out of 26,000 chunks: quadratic). SQLite sorts by id only among rows that tie on the index.
    const keys = fields.includes('id') ? fields : [...fields, 'id'];
    await this.raw.createIndex(new Map(keys.map((field) => [mongoField(field), 1] as const)));
    // The index an earlier version made of the same fields without _id (MongoDB's default name):
    // its replacement serves every query it did. One left behind (a failed drop) costs space, not answers.
    if (keys !== fields) await this.raw.dropIndex(fields.map((field) => `${mongoField(field)}_1`).join('_')).catch(() => undefined);
  }

  /**
   * MongoDB allows one text index per collection, so an existing one on another field is an
   * error, as the port wants. `english` is also MongoDB's default language; it is named so that
   * the stemming promised by the port does not rest on a server default.
   */
  async ensureTextIndex(field: string): Promise<void> {
    assertFieldPath(field);
    if (field === 'id') throw new Error('ensureTextIndex: id cannot be the text-indexed field');
    const existing = await this.store.textField(this.raw.collectionName);
    if (existing === field) return;
    if (existing !== undefined) throw new Error(`collection ${this.raw.collectionName} already has a text index on ${existing}; a collection has at most one`);
    await this.raw.createIndex({ [field]: 'text' }, { name: `text_${field}`, default_language: 'english', language_override: LANGUAGE_OVERRIDE });
    this.store.rememberTextField(this.raw.collectionName, field);
  }

  private async checkText(filter: Filter | undefined): Promise<void> {
    if (usesText(filter)) await this.store.assertTextIndex(this.raw.collectionName);
  }
}

function toOperation(write: DocumentWrite): AnyBulkWriteOperation<StoredDoc> {
  switch (write.op) {
    case 'upsert':
      assertId(write.doc);
      return { replaceOne: { filter: { _id: write.doc.id }, replacement: toStored(write.doc), upsert: true } };
    case 'delete':
      return { deleteOne: { filter: { _id: write.id } } };
    case 'deleteMany':
      return { deleteMany: { filter: translateFilter(write.filter) } };
  }
}

function assertId(doc: Doc): void {
  if (typeof doc.id !== 'string' || doc.id.length === 0) throw new Error('a document needs a non-empty string id');
}

function toStored(doc: Doc): StoredDoc {
  const { id, ...fields } = doc;
  return { ...fields, _id: id };
}

function fromStored<T extends Doc>(stored: StoredDoc): T {
  const { _id: id, ...fields } = stored;
  return { id: String(id), ...fields } as T;
}
