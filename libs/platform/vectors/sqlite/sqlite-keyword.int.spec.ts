/** The keyword leg's MaxScore pruning and its BM25 here: the same top k and scores as FTS5 ranking every match. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { VectorPoint } from '@lore/platform/vectors/port';
import { randomVector, seeded } from '@lore/platform/vectors/contract';
import { ftsQuery } from './sqlite-fts-query';
import { SqliteVectorStore } from './sqlite-vector-store.adapter';

const COMMON = ['the', 'of', 'and', 'in', 'a', 'to', 'is', 'with'];
const RARE = Array.from({ length: 400 }, (_, i) => `term${i}x`);
const STEMMED = ['running', 'runs', 'studies', 'studied', 'cells', 'cellular', 'généralisation', 'Über'];

describe('SQLite keyword search: pruned BM25 equals FTS5', () => {
  let dir: string;
  let store: SqliteVectorStore;
  const random = seeded(11);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
  const texts: string[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lore-keyword-'));
    store = new SqliteVectorStore({ path: join(dir, 'vectors.db') });
    await store.ensureIndex({ name: 'ix', dimensions: 4, distance: 'cosine' });
    const points: VectorPoint[] = [];
    for (let i = 0; i < 3000; i++) {
      // Zipf-like: common words in most texts, rare ones in few, stemmable forms in between.
      const words = Array.from({ length: 8 + Math.floor(random() * 40) }, () => (random() < 0.6 ? pick(COMMON) : random() < 0.3 ? pick(STEMMED) : pick(RARE.slice(0, 1 + Math.floor(random() * RARE.length)))));
      const text = words.join(' ');
      texts.push(text);
      points.push({ id: `p${i}`, collectionId: i % 3 === 0 ? 'other' : 'c', vector: randomVector(random, 4), text, payload: { content_id: `content-${i % 20}`, chunk_index: i % 5, source: null, tags: [], metadata: { n: i % 10 } } });
    }
    for (let i = 0; i < points.length; i += 1000) await store.write([{ op: 'upsert', index: 'ix', points: points.slice(i, i + 1000) }]);
    await store.write([{ op: 'delete', index: 'ix', ids: ['p1', 'p2', 'p4'] }]);
  });
  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** FTS5 ranking every match: the reference. */
  function reference(text: string, collection: string, k: number, n?: number): Array<{ id: string; score: number }> {
    const match = ftsQuery(text);
    if (match === null) return [];
    const filter = n === undefined ? '' : ` AND json_extract(p.metadata, '$.n') = ${n}`;
    const rows = store.db
      .prepare(`SELECT p.id AS id, bm25(vec_fts_ix) AS s FROM vec_fts_ix JOIN vec_points_ix AS p ON p.rowid = vec_fts_ix.rowid WHERE vec_fts_ix MATCH ? AND p.collection_id = ?${filter} ORDER BY s, p.id LIMIT ?`)
      .all(match, collection, k) as Array<{ id: string; s: number }>;
    return rows.map((r) => ({ id: r.id, score: -r.s }));
  }

  const queries = (): string[] =>
    Array.from({ length: 60 }, () => Array.from({ length: 2 + Math.floor(random() * 8) }, () => (random() < 0.5 ? pick(COMMON) : random() < 0.4 ? pick(STEMMED) : pick(RARE))).join(' '));

  it('finds the same top k with the same scores, pruned or not, and prunes common terms', async () => {
    const matches: unknown[] = [];
    const prepare = store.prepare.bind(store);
    store.prepare = (sql: string) => {
      const statement = prepare(sql);
      if (!sql.includes('MATCH')) return statement;
      return new Proxy(statement, {
        get: (target, property: keyof typeof statement) => {
          if (property === 'all') return (...args: Parameters<typeof statement.all>) => (matches.push(args[0]), target.all(...args));
          const value: unknown = Reflect.get(target, property);
          return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
        },
      });
    };
    const index = store.index('ix');
    let pruned = 0;
    for (const text of [...queries(), 'the of and', 'Running STUDIES in the cells', 'généralisation über the']) {
      for (const k of [1, 10, 100]) {
        matches.length = 0;
        const got = await index.searchKeyword({ collections: ['c'], text, limit: k });
        const want = reference(text, 'c', k);
        expect(got.map((h) => h.id)).toEqual(want.map((w) => w.id));
        got.forEach((hit, i) => expect(hit.score).toBeCloseTo(want[i]?.score ?? NaN, 9));
        if (matches.length === 1 && matches[0] !== ftsQuery(text)) pruned++;
      }
    }
    // Most of these queries hold common words whose bound is below the k-th score.
    expect(pruned).toBeGreaterThan(60);
    store.prepare = prepare;
  });

  it('applies filters and scope on the pruned path, and hybrid completion scores equal the leg’s', async () => {
    const index = store.index('ix');
    for (const text of queries().slice(0, 20)) {
      const got = await index.searchKeyword({ collections: ['c'], text, limit: 10, filter: { 'metadata.n': 3 } });
      const want = reference(text, 'c', 10, 3);
      expect(got.map((h) => h.id)).toEqual(want.map((w) => w.id));
      for (const hit of got) {
        expect(hit.collectionId).toBe('c');
        expect(hit.payload.metadata['n']).toBe(3);
      }
      const hybrid = await index.searchHybrid({ collections: ['c'], vector: [1, 0, 0, 0], text, limit: 20, candidates: 20 });
      const all = new Map(reference(text, 'c', 3000).map((r) => [r.id, r.score]));
      for (const hit of hybrid) expect(hit.legs.keyword?.score ?? NaN).toBeCloseTo(all.get(hit.id) ?? 0, 9);
    }
  });

  it('drops cached statistics on writes: a new rare term is found and scored with fresh IDFs', async () => {
    const index = store.index('ix');
    await index.searchKeyword({ collections: ['c'], text: 'zzzfresh the of', limit: 5 });
    await store.write([{ op: 'upsert', index: 'ix', points: [{ id: 'fresh', collectionId: 'c', vector: [0, 1, 0, 0], text: 'zzzfresh of the', payload: { content_id: 'x', chunk_index: 0, source: null, tags: [], metadata: {} } }] }]);
    const got = await index.searchKeyword({ collections: ['c'], text: 'zzzfresh the of', limit: 5 });
    expect(got[0]?.id).toBe('fresh');
    expect(got.map((h) => h.id)).toEqual(reference('zzzfresh the of', 'c', 5).map((w) => w.id));
    expect(got[0]?.score).toBeCloseTo(reference('zzzfresh the of', 'c', 5)[0]?.score ?? NaN, 9);
  });
});
