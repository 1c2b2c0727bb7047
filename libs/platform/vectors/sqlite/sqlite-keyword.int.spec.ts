/**
 * The keyword index: block-max MaxScore returns exactly the brute-force BM25 top k with each
 * collection's own statistics; scores stay put when another collection changes; the index
 * survives reopening and upgrades a file written with FTS5.
 */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { VectorFilter } from '@lore/platform/kernel';
import type { VectorPoint } from '@lore/platform/vectors/port';
import { keywordTerms } from '@lore/platform/vectors/port';
import { randomVector, seeded } from '@lore/platform/vectors/contract';
import { queryStems } from './sqlite-keyword';
import { SqliteVectorStore } from './sqlite-vector-store.adapter';
import { until } from '@lore/platform/testing';

const COMMON = ['the', 'of', 'and', 'in', 'a', 'to', 'is', 'with'];
const RARE = Array.from({ length: 400 }, (_, i) => `term${i}x`);
const STEMMED = ['running', 'runs', 'studies', 'studied', 'cells', 'cellular', 'généralisation', 'Über'];

interface Hit {
  readonly id: string;
  readonly score: number;
}

const analysed = new Map<string, string[]>();
function termsOf(text: string): string[] {
  let terms = analysed.get(text);
  if (!terms) {
    terms = keywordTerms(text);
    analysed.set(text, terms);
  }
  return terms;
}

/** BM25 by the book (FTS5's IDF floor, k1 1.2, b 0.75) over the live points of one collection: the reference. */
function bruteForce(points: ReadonlyMap<string, VectorPoint>, collection: string, text: string, k: number, accept: (p: VectorPoint) => boolean = () => true): Hit[] {
  const docs = [...points.values()].filter((p) => p.collectionId === collection).map((p) => ({ point: p, terms: termsOf(p.text) }));
  const avgdl = docs.reduce((sum, d) => sum + d.terms.length, 0) / docs.length;
  const stems = queryStems(text);
  const idfs = stems.map((stem) => {
    const df = docs.filter((d) => d.terms.includes(stem)).length;
    const value = Math.log((docs.length - df + 0.5) / (df + 0.5));
    return value <= 0 ? 1e-6 : value;
  });
  const hits: Hit[] = [];
  for (const { point, terms } of docs) {
    if (!accept(point)) continue;
    let score = 0;
    stems.forEach((stem, i) => {
      const tf = terms.filter((t) => t === stem).length;
      if (tf > 0) score += (idfs[i] ?? 0) * ((tf * 2.2) / (tf + 1.2 * (0.25 + (0.75 * terms.length) / avgdl)));
    });
    if (score > 0) hits.push({ id: point.id, score });
  }
  return hits.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1)).slice(0, k);
}

describe('SQLite keyword index: exact BM25 top k per collection', () => {
  let dir: string;
  let path: string;
  let store: SqliteVectorStore;
  const random = seeded(11);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
  const live = new Map<string, VectorPoint>();

  const textOf = (): string =>
    Array.from({ length: 8 + Math.floor(random() * 40) }, () => (random() < 0.6 ? pick(COMMON) : random() < 0.3 ? pick(STEMMED) : pick(RARE.slice(0, 1 + Math.floor(random() * RARE.length))))).join(' ');
  const pointOf = (id: string, collection: string, n: number, text = textOf()): VectorPoint => ({
    id,
    collectionId: collection,
    vector: randomVector(random, 4),
    text,
    payload: { content_id: `content-${n % 20}`, chunk_index: n % 5, source: null, tags: [], metadata: { n: n % 10, m: n % 97 } },
  });
  const queries = (count: number): string[] =>
    Array.from({ length: count }, () => Array.from({ length: 2 + Math.floor(random() * 8) }, () => (random() < 0.5 ? pick(COMMON) : random() < 0.4 ? pick(STEMMED) : pick(RARE))).join(' '));

  async function upsert(points: readonly VectorPoint[]): Promise<void> {
    for (let i = 0; i < points.length; i += 1000) await store.write([{ op: 'upsert', index: 'ix', points: points.slice(i, i + 1000) }]);
    for (const p of points) live.set(p.id, p);
  }
  async function remove(ids: readonly string[]): Promise<void> {
    await store.write([{ op: 'delete', index: 'ix', ids }]);
    for (const id of ids) live.delete(id);
  }
  function expectExact(got: readonly Hit[], want: readonly Hit[]): void {
    expect(got.map((h) => h.id)).toEqual(want.map((w) => w.id));
    got.forEach((hit, i) => expect(hit.score).toBeCloseTo(want[i]?.score ?? NaN, 9));
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lore-keyword-'));
    path = join(dir, 'vectors.db');
    store = new SqliteVectorStore({ path });
    await store.ensureIndex({ name: 'ix', dimensions: 4, distance: 'cosine' });
    await upsert(Array.from({ length: 3000 }, (_, i) => pointOf(`p${i}`, i % 3 === 0 ? 'other' : 'c', i)));
    // Half of collection c deleted (tombstones; compacted once the collection is quiet), some texts replaced, one point moved to another collection.
    await remove(Array.from({ length: 3000 }, (_, i) => `p${i}`).filter((_, i) => i % 3 === 1));
    await upsert([pointOf('p2', 'c', 2), pointOf('p5', 'other', 5)]);
    // Points with the same text tie on every query holding its words: the top k keeps the lowest ids among them.
    await upsert(Array.from({ length: 60 }, (_, i) => pointOf(`tie${(i * 37) % 60}`, 'c', i, 'tiedword of the')));
  });
  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('finds the brute-force top k with the same scores, for any k, with and without filters, before and after compaction', async () => {
    const index = store.index('ix');
    const collection = () => store.keywords('ix').collections.get('c');
    // Another 400 of c deleted: tombstones, whose compaction waits for the collection to be quiet.
    await remove([...live.values()].filter((p) => p.collectionId === 'c' && p.id.startsWith('p')).slice(0, 400).map((p) => p.id));
    expect(collection()?.rowids.length).toBeGreaterThan(collection()?.live ?? 0);
    await searchesMatchBruteForce(index);
    await until(async () => collection(), (keywords) => keywords !== undefined && keywords.rowids.length === keywords.live, 5_000);
    await searchesMatchBruteForce(index);
  });

  async function searchesMatchBruteForce(index: ReturnType<SqliteVectorStore['index']>): Promise<void> {
    for (const text of [...queries(40), 'the of and', 'tiedword', 'tiedword of the', 'Running STUDIES in the cells', 'généralisation über the']) {
      for (const k of [1, 10, 100]) expectExact(await index.searchKeyword({ collections: ['c'], text, limit: k }), bruteForce(live, 'c', text, k));
      // Broad filters (checked on the candidates only), selective ones (evaluated on the whole collection), $or, and content_id (up front, indexed).
      const filters: Array<[VectorFilter, (p: VectorPoint) => boolean]> = [
        [{ 'metadata.n': 3 }, (p) => p.payload.metadata['n'] === 3],
        [{ 'metadata.n': { $ne: 3 } }, (p) => p.payload.metadata['n'] !== 3],
        [{ 'metadata.m': 5 }, (p) => p.payload.metadata['m'] === 5],
        [{ $or: [{ 'metadata.m': 5 }, { 'metadata.n': { $in: [1, 2] } }] }, (p) => p.payload.metadata['m'] === 5 || [1, 2].includes(p.payload.metadata['n'] as number)],
        [{ content_id: 'content-7', 'metadata.n': { $ne: 3 } }, (p) => p.payload.content_id === 'content-7' && p.payload.metadata['n'] !== 3],
      ];
      for (const [filter, accept] of filters) {
        for (const k of [1, 10, 100]) expectExact(await index.searchKeyword({ collections: ['c'], text, limit: k, filter }), bruteForce(live, 'c', text, k, accept));
      }
    }
  }

  it('drops an overdue collection\'s dead entries a slice a turn, not in the deleting write, and searches the same throughout', async () => {
    const index = store.index('ix');
    const collection = () => store.keywords('ix').collections.get('pr');
    const points = Array.from({ length: 3000 }, (_, i) => pointOf(`pr${i}`, 'pr', i));
    await upsert(points);
    // Four fifths deleted in one write: past three quarters dead, the lists cannot wait for quiet.
    await remove(points.filter((_, i) => i % 5 !== 0).map((p) => p.id));
    const dead = (): number => [...(collection()?.postings.values() ?? [])].reduce((sum, list) => sum + list.size - list.df, 0);
    // Compacted in the write, a 26,311-chunk collection held every request 150–290 ms.
    expect({ ordinals: collection()?.rowids.length, deadEntries: dead() > 0 }).toEqual({ ordinals: 3000, deadEntries: true });
    const check = async (): Promise<void> => {
      for (const text of [...queries(10), 'the of and']) for (const k of [1, 10]) expectExact(await index.searchKeyword({ collections: ['pr'], text, limit: k }), bruteForce(live, 'pr', text, k));
    };
    await check();
    await until(async () => dead(), (left) => left === 0, 900);
    // Pruned, not compacted: ordinals are kept until the collection is quiet.
    expect(collection()?.rowids.length).toBe(3000);
    await check();
    await remove(points.filter((_, i) => i % 5 === 0).map((p) => p.id));
  });

  it('scores each collection with its own statistics when several are searched, and completes hybrid legs with the same scores', async () => {
    const index = store.index('ix');
    for (const text of queries(15)) {
      const both = [...bruteForce(live, 'c', text, 3000), ...bruteForce(live, 'other', text, 3000)].sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
      expectExact(await index.searchKeyword({ collections: ['c', 'other'], text, limit: 20 }), both.slice(0, 20));
      // Filtered over both: each collection's candidates checked lazily into one shared top k.
      const accept = (p: VectorPoint): boolean => p.payload.metadata['n'] !== 3;
      const filtered = [...bruteForce(live, 'c', text, 3000, accept), ...bruteForce(live, 'other', text, 3000, accept)].sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
      expectExact(await index.searchKeyword({ collections: ['c', 'other'], text, limit: 20, filter: { 'metadata.n': { $ne: 3 } } }), filtered.slice(0, 20));
      const hybrid = await index.searchHybrid({ collections: ['c', 'other'], vector: [1, 0, 0, 0], text, limit: 30, candidates: 30 });
      const all = new Map(both.map((h) => [h.id, h.score]));
      for (const hit of hybrid) expect(hit.legs.keyword?.score ?? NaN).toBeCloseTo(all.get(hit.id) ?? 0, 9);
    }
  });

  it('keeps a collection’s ranking and scores when another collection grows or shrinks', async () => {
    const index = store.index('ix');
    const texts = queries(10);
    const before = await Promise.all(texts.map((text) => index.searchKeyword({ collections: ['c'], text, limit: 10 })));
    const upload = Array.from({ length: 2000 }, (_, i) => pointOf(`b${i}`, 'big', i, `${pick(RARE)} ${pick(RARE)} the`));
    await upsert(upload);
    await remove(['p0', 'p3']);
    const after = await Promise.all(texts.map((text) => index.searchKeyword({ collections: ['c'], text, limit: 10 })));
    expect(after.map((hits) => hits.map((h) => [h.id, h.score]))).toEqual(before.map((hits) => hits.map((h) => [h.id, h.score])));
    await remove(upload.map((p) => p.id));
  });

  it('finds a new term at once (read-your-writes) and answers the same after reopening', async () => {
    const index = store.index('ix');
    await upsert([pointOf('fresh', 'c', 1, 'zzzfresh of the')]);
    expect((await index.searchKeyword({ collections: ['c'], text: 'zzzfresh the of', limit: 5 }))[0]?.id).toBe('fresh');
    const texts = queries(10);
    const before = await Promise.all(texts.map((text) => index.searchKeyword({ collections: ['c', 'other'], text, limit: 10 })));
    await store.close();
    store = new SqliteVectorStore({ path });
    const reopened = store.index('ix');
    expect(await Promise.all(texts.map((text) => reopened.searchKeyword({ collections: ['c', 'other'], text, limit: 10 })))).toEqual(before);
  });

  it('upgrades a file written with FTS5: builds the keyword tables from the texts and drops the FTS5 table', async () => {
    const texts = queries(10);
    const before = await Promise.all(texts.map((text) => store.index('ix').searchKeyword({ collections: ['c'], text, limit: 10 })));
    await store.close();
    const raw = new Database(path);
    raw.exec(`DROP TABLE vec_kwdocs_ix; DROP TABLE vec_kwterms_ix`);
    raw.exec(`CREATE VIRTUAL TABLE vec_fts_ix USING fts5(text, content='vec_text_ix', content_rowid='rowid', tokenize='porter unicode61')`);
    raw.exec(`INSERT INTO vec_fts_ix (vec_fts_ix) VALUES ('rebuild')`);
    raw.close();
    store = new SqliteVectorStore({ path });
    expect(await Promise.all(texts.map((text) => store.index('ix').searchKeyword({ collections: ['c'], text, limit: 10 })))).toEqual(before);
    const tables = store.db.prepare(`SELECT name FROM sqlite_master WHERE name LIKE 'vec_fts_ix%'`).pluck(true).all();
    expect(tables).toEqual([]);
  });
});
