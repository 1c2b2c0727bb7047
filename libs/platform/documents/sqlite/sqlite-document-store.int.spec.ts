/** Promises only the SQLite adapter makes: a durable file, physical deletion, atomic batches, usable indexes. */
import { createHash } from 'node:crypto';
import Database from 'better-sqlite3';
import type { DocumentStore } from '@lore/platform/documents/port';
import { SqliteQueryTranslator } from './sqlite-query.translator';
import { useSqliteFile } from './sqlite-file.fixture';
import { resolveSort } from '@lore/platform/documents/port';
import { countTurns } from '@lore/platform/testing';

describe('SQLite document store (file-backed)', () => {
  const file = useSqliteFile('lore-documents-');
  const { openStore, fileBytes } = file;

  it('keeps documents, checkpoints and indexes across close and reopen', async () => {
    const first = openStore('full');
    await first.collection('notes').ensureIndex(['owner']);
    await first.write([{ collection: 'notes', op: 'upsert', doc: { id: 'n1', owner: 'u1', text: 'hello' } }], { name: 'notes', value: '17' });
    await first.close();

    const second = openStore();
    expect(await second.collection('notes').get('n1')).toEqual({ id: 'n1', owner: 'u1', text: 'hello' });
    expect(await second.getCheckpoint('notes')).toBe('17');
    await second.collection('notes').ensureIndex(['owner']);
    expect(await second.collection('notes').count({ owner: 'u1' })).toBe(1);

    const raw = new Database(file.path, { readonly: true });
    try {
      expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
    } finally {
      raw.close();
    }
  });

  it.each([
    ['delete', async (store: DocumentStore) => void (await store.collection('memories').delete('secret'))],
    ['deleteMany in a batch', async (store: DocumentStore) => store.write([{ collection: 'memories', op: 'deleteMany', filter: { owner: 'u1' } }], { name: 'm', value: '2' })],
    ['replacement by a new version', async (store: DocumentStore) => store.collection('memories').upsert({ id: 'secret', owner: 'u1', text: 'redacted', big: '' })],
    ['reset', async (store: DocumentStore) => store.reset(['memories'], 'm')],
  ])('leaves no byte of a document removed by %s in the db, -wal or -shm files after purgeDeleted', async (_title, remove) => {
    const marker = `MARKER-${Math.random().toString(36).slice(2)}-END`;
    const store = openStore();
    const memories = store.collection('memories');
    await memories.ensureIndex(['text']);
    await store.collection('untouched').upsert({ id: 'k', v: 1 });
    for (let i = 0; i < 50; i++) await memories.upsert({ id: `other-${i}`, owner: 'u2', text: `filler ${i}`.repeat(20) });
    // Large enough to spill into overflow pages, and indexed, so every place a row can live is covered.
    await memories.upsert({ id: 'secret', owner: 'u1', text: marker, big: `${marker} `.repeat(2000) });
    // Checkpoint once so the marker also sits in the main file, as long-lived data would.
    await store.purgeDeleted();
    await memories.upsert({ id: 'after', owner: 'u2', text: 'written after the checkpoint' });
    expect(fileBytes().includes(marker)).toBe(true);

    await remove(store);
    await store.purgeDeleted();

    expect(fileBytes().includes(marker)).toBe(false);
    expect(await store.collection('untouched').get('k')).toEqual({ id: 'k', v: 1 });
    await store.close();
    expect(fileBytes().includes(marker)).toBe(false);
  });

  it('applies a batch atomically: a failing write rolls back every write and the checkpoint', async () => {
    const store = openStore();
    await store.write([{ collection: 'notes', op: 'upsert', doc: { id: 'keep', v: 1 } }], { name: 'notes', value: '1' });
    const failing = store.write(
      [
        { collection: 'notes', op: 'upsert', doc: { id: 'keep', v: 2 } },
        { collection: 'fresh', op: 'upsert', doc: { id: 'new' } },
        { collection: 'notes', op: 'deleteMany', filter: { v: { $bogus: 1 } as never } },
      ],
      { name: 'notes', value: '2' },
    );
    await expect(failing).rejects.toThrow(/unknown operator/);
    expect(await store.collection('notes').get('keep')).toEqual({ id: 'keep', v: 1 });
    expect(await store.collection('fresh').count()).toBe(0);
    expect(await store.getCheckpoint('notes')).toBe('1');
    // The store stays usable after a rolled-back batch.
    await store.write([{ collection: 'fresh', op: 'upsert', doc: { id: 'new' } }], { name: 'notes', value: '3' });
    expect(await store.collection('fresh').count()).toBe(1);
  });

  it('deletes thousands of matching documents a page per transaction, the event loop turning in between, then the rest of the batch with its checkpoint', async () => {
    const store = openStore();
    await store.collection('chunks').ensureIndex(['content_id']);
    const docs = Array.from({ length: 1_000 }, (_, i) => ({ collection: 'chunks', op: 'upsert' as const, doc: { id: `c${i}`, content_id: 'big' } }));
    await store.write([...docs, { collection: 'chunks', op: 'upsert', doc: { id: 'other', content_id: 'small' } }]);

    const turns = countTurns();
    await store.write(
      [
        { collection: 'chunks', op: 'deleteMany', filter: { content_id: 'big' } },
        { collection: 'chunks', op: 'upsert', doc: { id: 'late', content_id: 'big' } },
      ],
      { name: 'chunks', value: '9' },
    );
    expect(turns()).toBeGreaterThanOrEqual(3); // a turn per page of the 1,000 documents at least
    expect((await store.collection('chunks').find({})).items.map((d) => d.id).sort()).toEqual(['late', 'other']);
    expect(await store.getCheckpoint('chunks')).toBe('9');
  });

  it('pages a keyset listing off an index: keys the filter holds to one value leave the order, every index ends with id, one from before is replaced', async () => {
    const store = openStore();
    const chunks = store.collection<{ id: string; workspace_id: string; content_id: string; chunk_index: number }>('chunks');
    const oldName = `ix_docs_chunks_${createHash('sha256').update('content_id,chunk_index').digest('hex').slice(0, 16)}`;
    await chunks.upsert({ id: 'seed', workspace_id: 'w', content_id: 'other', chunk_index: 0 });
    file.withRaw((db) => db.exec(`CREATE INDEX ${oldName} ON docs_chunks (json_extract(body, '$.content_id'), json_extract(body, '$.chunk_index'))`));
    await chunks.ensureIndex(['content_id', 'chunk_index']);
    const indexes = file.withRaw((db) => db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND name LIKE 'ix_docs_chunks_%'").all() as Array<{ name: string; sql: string }>);
    expect(indexes.map((index) => index.name)).not.toContain(oldName);
    expect(indexes.map((index) => index.sql)).toEqual([expect.stringMatching(/json_extract\(body, '\$\.chunk_index'\), id\)$/)]);

    await store.write(Array.from({ length: 30 }, (_, i) => ({ collection: 'chunks', op: 'upsert' as const, doc: { id: `big_c${i}`, workspace_id: 'w', content_id: 'big', chunk_index: i } })));
    const statements: string[] = [];
    const prepare = (store as unknown as { prepare: (sql: string) => unknown }).prepare.bind(store);
    (store as unknown as { prepare: (sql: string) => unknown }).prepare = (sql) => (statements.push(sql), prepare(sql));
    const listed: string[] = [];
    for (let cursor: string | null | undefined; cursor !== null; ) {
      const page = await chunks.find({ filter: { workspace_id: 'w', content_id: 'big' }, sort: [['content_id', 'asc'], ['chunk_index', 'asc']], limit: 7, ...(cursor === undefined ? {} : { cursor }) });
      listed.push(...page.items.map((chunk) => chunk.id));
      cursor = page.nextCursor;
    }
    expect(listed).toEqual(Array.from({ length: 30 }, (_, i) => `big_c${i}`));
    const plans = file.withRaw((db) => [...new Set(statements)].map((sql) => (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...Array<null>((sql.match(/\?/g) ?? []).length).fill(null)) as Array<{ detail: string }>).map((row) => row.detail).join(' | ')));
    // The first page and the next ones: read off the index in order, the next ones from where the cursor points.
    expect(plans).toEqual([expect.stringMatching(/^SEARCH docs_chunks USING INDEX ix_docs_chunks_\w+ \(<expr>=\?\)$/), expect.stringMatching(/^SEARCH docs_chunks USING INDEX ix_docs_chunks_\w+ \(<expr>=\? AND <expr>>\?\)$/)]);
  });

  it('creates expression indexes that the generated queries actually use', async () => {
    const store = openStore();
    const notes = store.collection('notes');
    await notes.ensureIndex(['meta.owner', 'created']);
    for (let i = 0; i < 20; i++) await notes.upsert({ id: `n${i}`, meta: { owner: `u${i % 3}` }, created: `2024-01-${10 + i}` });

    const translator = new SqliteQueryTranslator();
    const where = translator.filter({ 'meta.owner': 'u1' });
    const sql = `SELECT body FROM docs_notes WHERE ${where} ORDER BY ${translator.orderBy(resolveSort([['created', 'desc']]))}`;
    const raw = new Database(file.path, { readonly: true });
    try {
      const plan = raw.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...translator.params) as Array<{ detail: string }>;
      expect(plan.map((row) => row.detail).join('\n')).toMatch(/USING INDEX ix_docs_notes_/);
    } finally {
      raw.close();
    }
  });
});
