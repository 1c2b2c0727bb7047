/** Promises only the SQLite adapter makes: atomic batches, KNN through vec0, durable 0600 files, FTS5 analysis = the port's. */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { VectorPoint } from '@lore/platform/vectors/port';
import { keywordTerms } from '@lore/platform/vectors/port';
import { randomVector, seeded } from '@lore/platform/vectors/contract';
import { openSqliteVectorStore, SqliteVectorStore } from './sqlite-vector-store.adapter';
import { countTurns } from '@lore/platform/testing';

const DIMENSIONS = 8;

function point(id: string, collectionId: string, vector: number[], text: string, metadata: Record<string, number> = {}): VectorPoint {
  return { id, collectionId, vector, text, payload: { content_id: `content-${id}`, chunk_index: 0, source: null, tags: [], metadata } };
}

describe('SQLite vector store (file-backed)', () => {
  let dir: string;
  let path: string;
  const open: SqliteVectorStore[] = [];
  const random = seeded(5);

  function openStore(): SqliteVectorStore {
    const store = new SqliteVectorStore({ path });
    open.push(store);
    return store;
  }

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'lore-vectors-int-'));
    path = join(dir, 'vectors.db');
  });
  afterEach(async () => {
    for (const store of open.splice(0)) await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('applies a batch atomically: a write failing inside the transaction rolls back every write and the checkpoint', async () => {
    const store = openStore();
    await store.ensureIndex({ name: 'ix', dimensions: DIMENSIONS, distance: 'cosine' });
    const keep = point('keep', 'c', randomVector(random, DIMENSIONS), 'kept words');
    await store.write([{ op: 'upsert', index: 'ix', points: [keep] }], { name: 'cp', value: '1' });
    // A failure only the engine can raise, after other writes of the batch have been applied.
    const raw = new Database(path);
    raw.exec(`CREATE TRIGGER fail_boom BEFORE INSERT ON vec_points_ix WHEN NEW.id = 'boom' BEGIN SELECT RAISE(ABORT, 'injected failure'); END`);
    raw.close();

    const batch = store.write(
      [
        { op: 'delete', index: 'ix', ids: ['keep'] },
        { op: 'upsert', index: 'ix', points: [point('fresh', 'c', randomVector(random, DIMENSIONS), 'fresh words')] },
        { op: 'upsert', index: 'ix', points: [point('boom', 'c', randomVector(random, DIMENSIONS), 'boom words')] },
      ],
      { name: 'cp', value: '2' },
    );
    // Not toThrow: better-sqlite3's native addon is loaded once per jest worker, so its SqliteError
    // may come from another test file's realm and fail an instanceof Error check.
    await expect(batch).rejects.toHaveProperty('message', expect.stringContaining('injected failure'));

    const index = store.index('ix');
    expect((await index.get(['keep', 'fresh'])).map((p) => p.id)).toEqual(['keep']);
    expect((await index.searchKeyword({ collections: ['c'], text: 'kept fresh', limit: 5 })).map((h) => h.id)).toEqual(['keep']);
    expect((await index.searchVector({ collections: ['c'], vector: keep.vector, limit: 5 })).map((h) => h.id)).toEqual(['keep']);
    expect(await store.getCheckpoint('cp')).toBe('1');
    // The store stays usable after a rolled-back batch.
    await store.write([{ op: 'upsert', index: 'ix', points: [point('later', 'c', randomVector(random, DIMENSIONS), 'later')] }], { name: 'cp', value: '3' });
    expect(await index.count({ collections: ['c'] })).toBe(2);
  });

  it('deletes thousands of matching points a page per transaction, the event loop turning in between, then the rest of the batch with its checkpoint', async () => {
    const store = openStore();
    await store.ensureIndex({ name: 'ix', dimensions: DIMENSIONS, distance: 'cosine' });
    const many = Array.from({ length: 1_000 }, (_, i): VectorPoint => ({ ...point(`big-${i}`, 'c', randomVector(random, DIMENSIONS), `big words ${i}`), payload: { content_id: 'big', chunk_index: i, source: null, tags: [], metadata: {} } }));
    await store.write([{ op: 'upsert', index: 'ix', points: [...many, point('other', 'c', randomVector(random, DIMENSIONS), 'other words')] }]);

    const turns = countTurns();
    const late = point('late', 'c', randomVector(random, DIMENSIONS), 'late words');
    await store.write(
      [
        { op: 'deleteWhere', collections: ['c'], filter: { content_id: 'big' } },
        { op: 'upsert', index: 'ix', points: [{ ...late, payload: { ...late.payload, content_id: 'big' } }] },
      ],
      { name: 'cp', value: '9' },
    );
    expect(turns()).toBeGreaterThanOrEqual(3); // one turn per page of the 1,000 points at least
    const index = store.index('ix');
    expect(await index.count({ collections: ['c'] })).toBe(2);
    expect((await index.get(['other', 'late', 'big-0', 'big-999'])).map((p) => p.id).sort()).toEqual(['late', 'other']);
    expect((await index.searchKeyword({ collections: ['c'], text: 'big', limit: 5 })).map((h) => h.id)).toEqual([]);
    expect(await store.getCheckpoint('cp')).toBe('9');
  });

  it('searches by vector only through vec0 KNN (never a distance scan), with partition and metadata constraints inside it', async () => {
    const store = openStore();
    await store.ensureIndex({ name: 'ix', dimensions: DIMENSIONS, distance: 'cosine' });
    const points = Array.from({ length: 1000 }, (_, i) => point(`p${i}`, i % 2 ? 'a' : 'b', randomVector(random, DIMENSIONS), `words ${i}`, { group: i % 100 }));
    await store.write([{ op: 'upsert', index: 'ix', points }]);
    const statements: string[] = [];
    const prepare = store.prepare.bind(store);
    store.prepare = (sql: string) => {
      statements.push(sql);
      return prepare(sql);
    };
    const index = store.index('ix');
    const vector = randomVector(random, DIMENSIONS);
    await index.searchVector({ collections: ['a'], vector, limit: 5 });
    await index.searchVector({ collections: ['a', 'b'], vector, limit: 5, filter: { content_id: 'content-p3' } });
    await index.searchVector({ collections: ['a'], vector, limit: 10, filter: { 'metadata.group': 3 } }); // selective: both passes
    await index.searchHybrid({ collections: ['a'], vector, text: 'words', limit: 5, filter: { chunk_index: { $lt: 3 } } });

    const knn = statements.filter((sql) => sql.includes('vec_knn_ix') && sql.includes('MATCH'));
    expect(knn.length).toBeGreaterThanOrEqual(5);
    for (const sql of new Set(knn)) {
      const unbound = new Array<null>(sql.split('?').length - 1).fill(null);
      const plan = (store.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...unbound) as Array<{ detail: string }>).map((row) => row.detail).join('\n');
      // sqlite-vec's idxStr starts with its plan kind: 3 is KNN (1 would be a full scan, 2 a point lookup).
      expect(plan).toMatch(/SCAN vec_knn_ix VIRTUAL TABLE INDEX 0:3/);
    }
    // Stored vectors are read for given points only (hybrid completion, scored in vector-distance.ts): vec0 point lookups by rowid, never a scan.
    expect(statements.some((sql) => /vec_distance_/.test(sql))).toBe(false);
    const reads = [...new Set(statements.filter((sql) => /^SELECT embedding FROM vec_knn_ix\b/.test(sql)))];
    expect(reads.length).toBeGreaterThan(0);
    for (const sql of reads) {
      const unbound = new Array<null>(sql.split('?').length - 1).fill(null);
      const plan = (store.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...unbound) as Array<{ detail: string }>).map((row) => row.detail).join('\n');
      expect(plan).toMatch(/^SCAN vec_knn_ix VIRTUAL TABLE INDEX \d+:2/);
      expect(sql).toMatch(/WHERE rowid = \?$/);
    }
    expect(knn.some((sql) => sql.includes('content_id = ?'))).toBe(true);
    expect(knn.some((sql) => sql.includes('rowid IN'))).toBe(true);
  });

  it('keeps indexes, points and checkpoints across close and reopen, in WAL mode', async () => {
    const first = openStore();
    await first.ensureIndex({ name: 'ix', dimensions: DIMENSIONS, distance: 'euclidean' });
    const p = point('p', 'c', randomVector(random, DIMENSIONS), 'durable words');
    await first.write([{ op: 'upsert', index: 'ix', points: [p] }], { name: 'cp', value: '17' });
    await first.close();

    const second = openSqliteVectorStore({ path, durability: 'full' });
    try {
      expect(await second.listIndexes()).toEqual([{ name: 'ix', dimensions: DIMENSIONS, distance: 'euclidean' }]);
      expect(await second.getCheckpoint('cp')).toBe('17');
      const [hit] = await second.index('ix').searchVector({ collections: ['c'], vector: p.vector, limit: 1 });
      expect(hit?.id).toBe('p');
      expect(hit?.score).toBeCloseTo(0, 5);
      expect((await second.index('ix').searchKeyword({ collections: ['c'], text: 'durable', limit: 1 }))[0]?.id).toBe('p');
    } finally {
      await second.close();
    }
    const raw = new Database(path, { readonly: true });
    try {
      expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
    } finally {
      raw.close();
    }
  });

  it('creates the database, its WAL and shared-memory file with mode 0600', async () => {
    const umask = process.umask(0o022);
    try {
      const store = openStore();
      await store.ensureIndex({ name: 'ix', dimensions: DIMENSIONS, distance: 'cosine' });
      await store.write([{ op: 'upsert', index: 'ix', points: [point('p', 'c', randomVector(random, DIMENSIONS), 'x')] }]);
      for (const file of [path, `${path}-wal`, `${path}-shm`]) expect({ file, mode: (statSync(file).mode & 0o777).toString(8) }).toEqual({ file, mode: '600' });
    } finally {
      process.umask(umask);
    }
  });
});

describe('the port’s keyword analysis equals FTS5 porter unicode61', () => {
  /** Sentences exercising Porter's steps, punctuation, case, diacritics and non-Latin scripts. */
  const TEXTS = [
    'Caresses ponies ties caress cats; feed agreed plastered bled motoring sing conflated troubled sized hopping tanned falling hissing fizzed failing filing.',
    'Happy sky! Relational conditional rational valency digitizer conformably radically differently vilely analogously vietnamization predication operator.',
    'Feudalism decisiveness hopefulness callousness formality sensitivity sensibility triplicate formative formalize electricity electrical hopeful goodness.',
    'Revival allowance inference airliner gyroscopic adjustable defensible irritant replacement adjustment dependent adoption homologous communism activate.',
    'Angularity effective bowdlerize probate rate cease controlling roll generalizations generously dying lying eyed skies flies sized ski skis owed owing.',
    'RUNNING Runs runner ran; LIBRARIES library\'s "quoted" (parenthesised) hyphen-ated under_score e-mail 3.14 2nd 10x x10 año niño façade naïvely größes.',
    'Crème brûlée, Ångström, Øresund, Straße, İstanbul, 東京 タワー, Привет мир, مرحبا, ümlauts, coöperation, résumés, café au lait, π ≈ 3.14159 — 50% off!',
    'agreement agreements disagreeing disagreed happiness happily unhappiness nationalization nationally nationalism international internationalized yes',
    'abyss abysses bus buses gas gases quiz quizzes fly flying flies hoping hopped hopes filing filed files mating matted mats controlling controlled',
    'analogies biology technological archaeologies apologies possibly probably nobly humbly doubly sensibly visibly feasibly excitable enables',
  ];

  it.each(TEXTS.map((text, i) => [i, text] as const))('sentence %i: same terms in the same order', (_i, text) => {
    const db = new Database(':memory:');
    try {
      db.exec(`CREATE VIRTUAL TABLE t USING fts5(text, tokenize='porter unicode61')`);
      db.exec(`CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance')`);
      db.prepare('INSERT INTO t (rowid, text) VALUES (1, ?)').run(text);
      const rows = db.prepare('SELECT term, offset FROM v ORDER BY offset').all() as Array<{ term: string; offset: number }>;
      expect(keywordTerms(text)).toEqual(rows.map((row) => row.term));
    } finally {
      db.close();
    }
  });
});
