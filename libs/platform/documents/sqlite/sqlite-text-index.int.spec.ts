/** Text-index promises only the SQLite adapter makes: physical deletion of terms, persistence, a plan that uses FTS5. */
import { spawn } from 'node:child_process';
import type { DocumentStore } from '@lore/platform/documents/port';
import { resolveSort } from '@lore/platform/documents/port';
import { SqliteQueryTranslator } from './sqlite-query.translator';
import { useSqliteFile } from './sqlite-file.fixture';

describe('SQLite document store text index (file-backed)', () => {
  const file = useSqliteFile('lore-documents-text-');
  const { openStore, fileBytes } = file;
  const path = (): string => file.path;
  const { withRaw } = file;

  /**
   * A word the porter stemmer leaves alone (no suffix it strips) and no other term shares a
   * prefix with, so the index stores it whole: its lowercase bytes are in the file while the
   * document lives, which makes their absence afterwards meaningful.
   */
  function distinctiveWord(): { written: string; indexed: string } {
    const letters = 'bcdfghjklmnpqrtvwxz';
    const middle = Array.from({ length: 10 }, () => letters[Math.floor(Math.random() * letters.length)]).join('');
    const written = `Zy${middle.toUpperCase()}qk`;
    return { written, indexed: written.toLowerCase() };
  }

  it.each([
    ['delete', async (store: DocumentStore) => void (await store.collection('messages').delete('secret'))],
    ['deleteMany by $text', async (store: DocumentStore) => void (await store.collection('messages').deleteMany({ $text: 'confidential' }))],
    ['a batch deleteMany', async (store: DocumentStore) => store.write([{ collection: 'messages', op: 'deleteMany', filter: { owner: 'u1' } }], { name: 'm', value: '2' })],
    ['replacement by a new version', async (store: DocumentStore) => store.collection('messages').upsert({ id: 'secret', owner: 'u1', content: 'redacted' })],
    ['reset', async (store: DocumentStore) => store.reset(['messages'], 'm')],
  ])('leaves no byte of a word removed by %s in the db, -wal or -shm files after purgeDeleted', async (_title, remove) => {
    const word = distinctiveWord();
    const store = openStore();
    const messages = store.collection('messages');
    await messages.ensureTextIndex('content');
    for (let i = 0; i < 40; i++) await messages.upsert({ id: `early-${i}`, owner: 'u2', content: `filler message number ${i}` });
    await messages.upsert({ id: 'secret', owner: 'u1', content: `a confidential note: ${word.written} here` });
    // Later writes merge the secret's index segment into larger ones, as a long-lived index would hold it.
    for (let i = 0; i < 40; i++) await messages.upsert({ id: `late-${i}`, owner: 'u2', content: `later message number ${i}` });
    await store.purgeDeleted();
    expect(await messages.count({ $text: word.written })).toBe(1);
    const before = fileBytes();
    expect(before.includes(word.indexed)).toBe(true);
    expect(before.includes(word.written)).toBe(true);

    await remove(store);
    await store.purgeDeleted();

    expect(await messages.count({ $text: word.written })).toBe(0);
    const after = fileBytes();
    expect(after.includes(word.indexed)).toBe(false);
    expect(after.includes(word.written)).toBe(false);
    await store.close();
    expect(fileBytes().includes(word.indexed)).toBe(false);
  });

  it('keeps the text index across reopening the file, for queries, writes and the one-field rule', async () => {
    const first = openStore();
    await first.collection('messages').ensureTextIndex('body.text');
    await first.write([
      { collection: 'messages', op: 'upsert', doc: { id: 'm1', body: { text: 'hello brave world' } } },
      { collection: 'messages', op: 'upsert', doc: { id: 'm2', body: { text: 'goodbye world' } } },
    ]);
    await first.close();

    const second = openStore();
    const messages = second.collection('messages');
    expect((await messages.find({ filter: { $text: 'world' }, sort: [['id', 'asc']] })).items.map((doc) => doc.id)).toEqual(['m1', 'm2']);
    await messages.upsert({ id: 'm2', body: { text: 'goodbye moon' } });
    await messages.upsert({ id: 'm3', body: { text: 'brave moon' } });
    expect(await messages.count({ $text: 'world' })).toBe(1);
    expect(await messages.count({ $text: 'brave' })).toBe(2);
    await messages.ensureTextIndex('body.text');
    await expect(messages.ensureTextIndex('title')).rejects.toThrow(/already has a text index on body\.text/);

    // Another connection to the same file sees the index that this one declared.
    const third = openStore();
    expect(await third.collection('messages').count({ $text: 'moon' })).toBe(2);
  });

  it('keeps the FTS index consistent with the documents through every write path', async () => {
    const store = openStore();
    const notes = store.collection('notes');
    await notes.upsert({ id: 'pre', text: 'written before the index' });
    await notes.ensureTextIndex('text');
    for (let i = 0; i < 30; i++) await notes.upsert({ id: `n${i}`, text: `note ${i} about topic ${i % 4}`, kind: i % 3 });
    await notes.upsert({ id: 'n1', text: 'rewritten' });
    await notes.upsert({ id: 'n2', kind: 9 });
    await notes.upsert({ id: 'n3', text: { not: 'a string' } });
    await notes.delete('n4');
    await notes.deleteMany({ kind: 2 });
    await notes.upsert({ id: 'n6', text: 'note 6 about topic 2', kind: 'same words, other fields' });
    await notes.upsert({ id: 'n3', text: 'a string again' });
    await store.write([
      { collection: 'notes', op: 'upsert', doc: { id: 'n5', text: 'batched' } },
      { collection: 'notes', op: 'upsert', doc: { id: 'b1', text: 'new in a batch' } },
      { collection: 'notes', op: 'upsert', doc: { id: 'b1', text: 'rewritten in the same batch' } },
      { collection: 'notes', op: 'upsert', doc: { id: 'b2', text: 'batched twice' } },
      { collection: 'notes', op: 'upsert', doc: { id: 'b2', text: 'batched twice' } },
      { collection: 'notes', op: 'deleteMany', filter: { $text: 'topic 3' } },
    ]);
    expect(await notes.count({ $text: 'before' })).toBe(1);
    expect(await notes.count({ $text: 'string' })).toBe(1);
    expect(await notes.count({ $text: 'new' })).toBe(0);
    expect(await notes.count({ $text: 'twice' })).toBe(1);
    expect(await notes.count({ $text: 'rewritten' })).toBe(2);

    withRaw((raw) => {
      // rank 1: also compare the index with the content (the view over the docs table).
      expect(() => raw.prepare(`INSERT INTO "docs_notes$fts" ("docs_notes$fts", rank) VALUES ('integrity-check', 1)`).run()).not.toThrow();
      const indexed = raw.prepare(`SELECT count(*) FROM "docs_notes$fts"`).pluck().get();
      const docs = raw.prepare('SELECT count(*) FROM docs_notes').pluck().get();
      expect(indexed).toBe(docs);
    });

    await store.reset(['notes'], 'none');
    withRaw((raw) => {
      expect(raw.prepare(`SELECT count(*) FROM "docs_notes$fts_docsize"`).pluck().get()).toBe(0);
      expect(raw.prepare(`SELECT count(*) FROM "docs_notes$fts" WHERE "docs_notes$fts" MATCH 'note'`).pluck().get()).toBe(0);
    });
  });

  /** FTS5's own check of the index against the documents (rank 1: through the content view), and one entry per document. */
  function expectIndexMatchesDocs(table: string): void {
    withRaw((raw) => {
      expect(() => raw.prepare(`INSERT INTO "${table}$fts" ("${table}$fts", rank) VALUES ('integrity-check', 1)`).run()).not.toThrow();
      expect(raw.prepare(`SELECT count(*) FROM "${table}$fts_docsize"`).pluck().get()).toBe(raw.prepare(`SELECT count(*) FROM ${table}`).pluck().get());
    });
  }

  it('writes each batch of documents into the text index at commit, not a segment per document', async () => {
    const store = openStore();
    await store.collection('notes').ensureTextIndex('text');
    const segments = (): number => withRaw((raw) => Number(raw.prepare(`SELECT count(*) FROM "docs_notes$fts_idx"`).pluck().get()));
    const before = segments();
    await store.write(Array.from({ length: 3 }, (_, i) => ({ collection: 'notes', op: 'upsert' as const, doc: { id: `n${i}`, text: `note ${i}` } })));
    // One new segment for the batch (a trigger per row made one per document).
    expect(segments() - before).toBe(1);
    expectIndexMatchesDocs('docs_notes');
  });

  it('drops the insert and update triggers a file from an earlier version has, and indexes each write once', async () => {
    const first = openStore();
    const notes = first.collection('notes');
    await notes.ensureTextIndex('text');
    await notes.upsert({ id: 'old', text: 'written by an earlier version' });
    await first.close();
    withRaw((raw) => oldWriteTriggers('docs_notes').forEach((sql) => raw.exec(sql)));

    const second = openStore();
    await second.collection('notes').upsert({ id: 'new', text: 'written after the upgrade' });
    await second.collection('notes').upsert({ id: 'old', text: 'rewritten after the upgrade' });
    expect(await second.collection('notes').count({ $text: 'upgrade' })).toBe(2);
    withRaw((raw) => expect(raw.prepare(`SELECT name FROM sqlite_master WHERE type = 'trigger' ORDER BY name`).pluck().all()).toEqual(['docs_notes$fts_delete']));
    expectIndexMatchesDocs('docs_notes');
  });

  /** A store whose 'notes' have a text index on `text`, holding one document. */
  async function indexedNotes(first: { id: string; text: string }) {
    const store = openStore();
    const notes = store.collection('notes');
    await notes.ensureTextIndex('text');
    await notes.upsert(first);
    return { store, notes };
  }

  it('drops the triggers an earlier version adds while this store has the file open, before its next write', async () => {
    const { store, notes } = await indexedNotes({ id: 'a', text: 'before the old version' });
    withRaw((raw) => oldWriteTriggers('docs_notes').forEach((sql) => raw.exec(sql)));
    // A $text read first: it notices the schema moved too, which must not spare the triggers.
    expect(await notes.count({ $text: 'before' })).toBe(1);
    await store.write([{ collection: 'notes', op: 'upsert', doc: { id: 'b', text: 'batched after it' } }]);
    await notes.upsert({ id: 'a', text: 'rewritten after it' });
    expect(await notes.count({ $text: 'after' })).toBe(2);
    expectIndexMatchesDocs('docs_notes');
  });

  it('keeps rowids past 2^53 exact when it writes a row and its terms', async () => {
    const { notes } = await indexedNotes({ id: 'first', text: 'first row' });
    // A row at 2^60 + 1 (a restore, or an explicit rowid): SQLite numbers the next rows after it.
    withRaw((raw) => {
      raw.prepare(`INSERT INTO docs_notes (rowid, id, body) VALUES (?, 'big', '{"id":"big","text":"big row"}')`).run(2n ** 60n + 1n);
      raw.prepare(`INSERT INTO "docs_notes$fts" (rowid, text) VALUES (?, 'big row')`).run(2n ** 60n + 1n);
    });
    await notes.upsert({ id: 'next', text: 'next one' });
    await notes.upsert({ id: 'next', text: 'next two' });
    expect(await notes.get('next')).toEqual({ id: 'next', text: 'next two' });
    expect(await notes.count({ $text: 'two' })).toBe(1);
    expectIndexMatchesDocs('docs_notes');
  });

  it("waits out another connection's write lock (busy_timeout) rather than failing with SQLITE_BUSY", async () => {
    const { store, notes } = await indexedNotes({ id: 'a', text: 'first' });
    // Another process holds the write lock for 400 ms: better-sqlite3 waits synchronously, so not this one.
    const holdWriteLock = async (): Promise<{ released: Promise<unknown> }> => {
      const holder = spawn(process.execPath, [
        '-e',
        `const db = new (require(${JSON.stringify(require.resolve('better-sqlite3'))}))(${JSON.stringify(path())});
         db.exec('BEGIN IMMEDIATE'); process.stdout.write('locked\\n');
         Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 400); db.exec('COMMIT'); db.close();`,
      ]);
      const exited = new Promise((resolve) => holder.once('exit', resolve));
      await new Promise<void>((resolve, reject) => {
        holder.stdout.once('data', () => resolve());
        void exited.then((code) => reject(new Error(`the lock holder exited first (${String(code)})`)));
      });
      // Wrapped: an async function returning the promise itself would wait for it.
      return { released: exited };
    };
    let held = await holdWriteLock();
    await store.write([{ collection: 'notes', op: 'upsert', doc: { id: 'b', text: 'batched' } }]);
    await held.released;
    held = await holdWriteLock();
    await notes.upsert({ id: 'c', text: 'single' });
    await held.released;
    const others = store.collection('others'); // the table first: creating it would wait out the lock itself
    held = await holdWriteLock();
    await others.ensureTextIndex('text');
    await held.released;
    held = await holdWriteLock();
    await store.reset(['others'], 'none');
    await held.released;
    expect(await notes.count({ $text: 'batched' })).toBe(1);
    expect(await notes.count({ $text: 'single' })).toBe(1);
  });

  it('indexes a write into a collection whose text index another connection created after this one last wrote there', async () => {
    const writer = openStore();
    const [notes, others] = [writer.collection('notes'), writer.collection('others')];
    // Each write below is the writer's first to its collection since the schema last moved, so
    // what it knows of that collection's text index is what it found before the other connection acted.
    await notes.upsert({ id: 'before', text: 'before the index' });
    await openStore().collection('notes').ensureTextIndex('text');
    await writer.write([{ collection: 'notes', op: 'upsert', doc: { id: 'batched', text: 'after the index' } }]);
    expect(await notes.count({ $text: 'after' })).toBe(1);
    await others.upsert({ id: 'before', text: 'before the index' });
    await openStore().collection('others').ensureTextIndex('text');
    await others.upsert({ id: 'single', text: 'after the index too' });
    expect(await others.count({ $text: 'after' })).toBe(1);
    expectIndexMatchesDocs('docs_notes');
    expectIndexMatchesDocs('docs_others');
  });

  it('answers $text through the FTS5 table with one uncorrelated subquery, by rowid when asked', async () => {
    const store = openStore();
    const messages = store.collection('messages');
    await messages.ensureIndex(['workspace_id', 'created_at']);
    await messages.ensureTextIndex('content');
    for (let i = 0; i < 50; i++) await messages.upsert({ id: `m${i}`, workspace_id: `w${i % 2}`, created_at: `2024-01-${10 + (i % 20)}`, content: `message ${i}` });

    const translator = new SqliteQueryTranslator(() => '"docs_messages$fts"');
    const where = translator.filter({ workspace_id: 'w1', $text: 'message 7' });
    const order = translator.orderBy(resolveSort([['created_at', 'desc']]));
    const plan = (from: string): string =>
      withRaw((raw) =>
        (raw.prepare(`EXPLAIN QUERY PLAN SELECT body FROM ${from} WHERE ${where} ORDER BY ${order} LIMIT 50`).all(...translator.params) as Array<{ detail: string }>)
          .map((row) => row.detail)
          .join('\n'),
      );
    expect(translator.params).toContain('"message" "7"');
    // SQLite's own choice: the other index, probing the FTS5 result (run once) per row.
    expect(plan('docs_messages')).toMatch(/VIRTUAL TABLE INDEX/);
    expect(plan('docs_messages')).not.toMatch(/CORRELATED/);
    // What the adapter asks for when the words are selective: rowid lookups from the FTS5 result.
    expect(plan('docs_messages NOT INDEXED')).toMatch(/SEARCH docs_messages USING INTEGER PRIMARY KEY \(rowid=\?\)/);
    expect(plan('docs_messages NOT INDEXED')).toMatch(/VIRTUAL TABLE INDEX/);
    expect(plan('docs_messages NOT INDEXED')).not.toMatch(/CORRELATED/);
  });
});

/** The insert and update triggers versions before upsert-written terms kept a text index on field `text` with. */
function oldWriteTriggers(table: string): string[] {
  const text = (row: string): string => `IIF(json_type(${row}, '$.text') = 'text', json_extract(${row}, '$.text'), NULL)`;
  return [
    `CREATE TRIGGER "${table}$fts_insert" AFTER INSERT ON ${table} BEGIN INSERT INTO "${table}$fts" (rowid, text) VALUES (new.rowid, ${text('new.body')}); END`,
    `CREATE TRIGGER "${table}$fts_update" AFTER UPDATE OF body ON ${table} WHEN ${text('old.body')} IS NOT ${text('new.body')} BEGIN
      INSERT INTO "${table}$fts" ("${table}$fts", rowid, text) VALUES ('delete', old.rowid, ${text('old.body')});
      INSERT INTO "${table}$fts" (rowid, text) VALUES (new.rowid, ${text('new.body')});
    END`,
  ];
}
