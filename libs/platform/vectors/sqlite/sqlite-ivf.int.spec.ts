/** The SQLite adapter's approximate (IVF) dense search: recall, filters, deletions, training, rollback, old layouts. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { VectorIndexDefinition, VectorPoint } from '@lore/platform/vectors/port';
import { seeded } from '@lore/platform/vectors/contract';
import { SqliteVectorStore } from './sqlite-vector-store.adapter';
import type { IvfOptions } from './sqlite-ivf';

const DIMENSIONS = 16;
const DEFINITION: VectorIndexDefinition = { name: 'ix', dimensions: DIMENSIONS, distance: 'cosine' };
const IVF: IvfOptions = { minPoints: 1000, retrainGrowth: 4 };

/** Points around 40 random centres (the shape real embeddings have), unit length. */
function clustered(count: number, seed: number, prefix = 'p'): VectorPoint[] {
  const random = seeded(seed);
  const centres = Array.from({ length: 40 }, () => Array.from({ length: DIMENSIONS }, () => random() * 2 - 1));
  return Array.from({ length: count }, (_, i) => {
    const centre = centres[Math.floor(random() * centres.length)] ?? [];
    const vector = centre.map((x) => Math.fround(x + (random() - 0.5) * 0.6));
    return { id: `${prefix}${i}`, collectionId: 'c', vector, text: `text ${i}`, payload: { content_id: `content-${i % 50}`, chunk_index: i % 7, source: null, tags: [], metadata: { group: i % 100 } } };
  });
}

function cosine(a: readonly number[] | Float32Array, b: readonly number[] | Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let d = 0; d < a.length; d++) {
    dot += (a[d] ?? 0) * (b[d] ?? 0);
    na += (a[d] ?? 0) ** 2;
    nb += (b[d] ?? 0) ** 2;
  }
  return dot / Math.sqrt(na * nb);
}

const exactTop = (points: readonly VectorPoint[], query: readonly number[], k: number): string[] =>
  points
    .map((p) => [p.id, cosine(p.vector, query)] as const)
    .sort((a, b) => b[1] - a[1])
    .slice(0, k)
    .map(([id]) => id);

describe('SQLite vector store: IVF dense search', () => {
  let dir: string;
  const open: SqliteVectorStore[] = [];

  function openStore(ivf: IvfOptions | false = IVF): SqliteVectorStore {
    const store = new SqliteVectorStore({ path: join(dir, 'vectors.db'), ivf });
    open.push(store);
    return store;
  }

  async function filled(points: readonly VectorPoint[], ivf: IvfOptions | false = IVF): Promise<SqliteVectorStore> {
    const store = openStore(ivf);
    await store.ensureIndex(DEFINITION);
    for (let i = 0; i < points.length; i += 500) await store.write([{ op: 'upsert', index: 'ix', points: points.slice(i, i + 500) }]);
    return store;
  }

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'lore-ivf-'));
  });
  afterEach(async () => {
    for (const store of open.splice(0)) await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('trains a collection that reaches minPoints, probes lists through vec0 and keeps recall@10 >= 0.95', async () => {
    const points = clustered(3000, 1);
    const store = await filled(points);
    const model = store.ivf.model(DEFINITION, 'c');
    expect(model?.trainedSize).toBe(1000);
    expect(store.ivf.model(DEFINITION, 'c')?.lists).toBeGreaterThan(1);
    const statements: string[] = [];
    const prepare = store.prepare.bind(store);
    store.prepare = (sql: string) => {
      statements.push(sql);
      return prepare(sql);
    };
    const queries = clustered(50, 99, 'q');
    let recall = 0;
    for (const q of queries) {
      const want = new Set(exactTop(points, q.vector as number[], 10));
      const got = await store.index('ix').searchVector({ collections: ['c'], vector: q.vector, limit: 10 });
      expect(got).toHaveLength(10);
      recall += got.filter((h) => want.has(h.id)).length / 10;
    }
    expect(recall / queries.length).toBeGreaterThanOrEqual(0.95);
    expect(statements.some((sql) => sql.includes('cluster IN'))).toBe(true);
  });

  it('retrains when the collection has grown retrainGrowth times, inside the write', async () => {
    const store = await filled(clustered(4000, 2));
    expect(store.ivf.model(DEFINITION, 'c')?.trainedSize).toBe(4000);
    // The stored centroids are the cached ones.
    const reopened = openStore();
    expect(reopened.ivf.model(DEFINITION, 'c')?.trainedSize).toBe(4000);
    const counts = reopened.db.prepare('SELECT count(*) FROM vec_knn_ix WHERE collection_id = ? AND cluster = 0').pluck(true).get('c');
    expect(counts).toBe(0);
  });

  it('applies filters: vec0-evaluated ones and selective residuals exactly, others on the approximate path', async () => {
    const points = clustered(3000, 3);
    const store = await filled(points);
    const index = store.index('ix');
    for (const q of clustered(10, 98, 'q')) {
      const group = await index.searchVector({ collections: ['c'], vector: q.vector, limit: 10, filter: { 'metadata.group': 7 } });
      const want = exactTop(points.filter((p) => p.payload.metadata['group'] === 7), q.vector as number[], 10);
      expect(group.map((h) => h.id)).toEqual(want); // 1%: fewer than k in the probed lists, exact fallback
      const content = await index.searchVector({ collections: ['c'], vector: q.vector, limit: 10, filter: { content_id: 'content-3' } });
      expect(content.map((h) => h.id)).toEqual(exactTop(points.filter((p) => p.payload.content_id === 'content-3'), q.vector as number[], 10));
      const chunk = await index.searchVector({ collections: ['c'], vector: q.vector, limit: 10, filter: { chunk_index: { $lt: 3 } } });
      expect(chunk.map((h) => h.id)).toEqual(exactTop(points.filter((p) => p.payload.chunk_index < 3), q.vector as number[], 10)); // vec0-evaluated: exact
      const half = await index.searchVector({ collections: ['c'], vector: q.vector, limit: 10, filter: { 'metadata.group': { $lt: 50 } } });
      expect(half).toHaveLength(10); // 50%: approximate path, filter still applied
      for (const hit of half) expect(hit.payload.metadata['group']).toBeLessThan(50);
    }
  });

  it('never returns deleted points, never another collection’s, and forgets an emptied collection’s centroids', async () => {
    const points = clustered(3000, 4);
    const store = await filled(points);
    const other = clustered(1500, 5, 'o').map((p) => ({ ...p, collectionId: 'other' }));
    await store.write([{ op: 'upsert', index: 'ix', points: other }]);
    const index = store.index('ix');
    const queries = clustered(20, 97, 'q');
    const deleted = new Set(queries.flatMap((q) => exactTop(points, q.vector as number[], 5)));
    await store.write([{ op: 'delete', index: 'ix', ids: [...deleted] }]);
    for (const q of queries) {
      const hits = await index.searchVector({ collections: ['c'], vector: q.vector, limit: 10 });
      expect(hits).toHaveLength(10);
      for (const hit of hits) {
        expect(deleted.has(hit.id)).toBe(false);
        expect(hit.collectionId).toBe('c');
      }
      const hybrid = await index.searchHybrid({ collections: ['c'], vector: q.vector, text: 'text', limit: 10 });
      for (const hit of hybrid) expect(deleted.has(hit.id)).toBe(false);
    }
    await store.write([{ op: 'deleteWhere', index: 'ix', collections: ['c'] }]);
    expect(store.ivf.model(DEFINITION, 'c')).toBeNull();
    expect(await index.searchVector({ collections: ['c'], vector: queries[0]?.vector ?? [], limit: 10 })).toEqual([]);
    expect(store.ivf.model(DEFINITION, 'other')).not.toBeNull();
  });

  it('rolls training back with its batch, cache included', async () => {
    const store = await filled(clustered(900, 6));
    const raw = new Database(join(dir, 'vectors.db'));
    raw.exec(`CREATE TRIGGER fail_boom BEFORE INSERT ON vec_points_ix WHEN NEW.id = 'boom' BEGIN SELECT RAISE(ABORT, 'injected failure'); END`);
    raw.close();
    const more = clustered(200, 7, 'm');
    const batch = store.write([
      { op: 'upsert', index: 'ix', points: more },
      { op: 'upsert', index: 'ix', points: [{ ...(more[0] as VectorPoint), id: 'boom' }] },
    ]);
    await expect(batch).rejects.toHaveProperty('message', expect.stringContaining('injected failure'));
    expect(store.ivf.model(DEFINITION, 'c')).toBeNull();
    expect(await store.index('ix').count({ collections: ['c'] })).toBe(900);
    await store.write([{ op: 'upsert', index: 'ix', points: more }]);
    expect(store.ivf.model(DEFINITION, 'c')?.trainedSize).toBe(1100);
  });

  it('keeps an index created before the IVF layer (no cluster column) working, exactly', async () => {
    const first = openStore(false);
    await first.ensureIndex(DEFINITION);
    first.db.exec('DROP TABLE vec_knn_ix');
    first.db.exec(`CREATE VIRTUAL TABLE vec_knn_ix USING vec0(collection_id TEXT PARTITION KEY, embedding float[${DIMENSIONS}] distance_metric=cosine, content_id TEXT, source TEXT, chunk_index INTEGER)`);
    await first.close();
    const points = clustered(1500, 8);
    const store = await filled(points);
    expect(store.ivf.layout('ix')).toBe(false);
    expect(store.ivf.model(DEFINITION, 'c')).toBeNull();
    const q = clustered(1, 96, 'q')[0] as VectorPoint;
    const hits = await store.index('ix').searchVector({ collections: ['c'], vector: q.vector, limit: 10 });
    expect(hits.map((h) => h.id)).toEqual(exactTop(points, q.vector as number[], 10));
  });

  it('with ivf: false, never trains', async () => {
    const store = await filled(clustered(1500, 9), false);
    expect(store.ivf.model(DEFINITION, 'c')).toBeNull();
  });
});
