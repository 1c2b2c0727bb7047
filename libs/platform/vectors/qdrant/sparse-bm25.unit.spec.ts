import { keywordTerms } from '@lore/platform/vectors/port';
import { pointUuid } from './qdrant-point-id';
import { DEFAULT_BM25, documentVector, queryVector, termIndex } from './sparse-bm25';

describe('BM25 sparse vectors', () => {
  it('weights each distinct stemmed term by saturated, length-normalised frequency', () => {
    const text = 'Running runs; the runner ran.';
    const vector = documentVector(text);
    const terms = keywordTerms(text); // run, run, the, runner, ran
    expect(terms).toEqual(['run', 'run', 'the', 'runner', 'ran']);
    const { k1, b, averageLength } = DEFAULT_BM25;
    const weight = (tf: number): number => (tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * terms.length) / averageLength));
    const byIndex = new Map(vector.indices.map((index, i) => [index, vector.values[i]]));
    expect(byIndex.size).toBe(4);
    expect(byIndex.get(termIndex('run'))).toBeCloseTo(weight(2), 12);
    expect(byIndex.get(termIndex('runner'))).toBeCloseTo(weight(1), 12);
    expect([...vector.indices].sort((x, y) => x - y)).toEqual(vector.indices);
  });

  it('queries with 1 per distinct term, matching the documents’ indices', () => {
    expect(queryVector('RUNNING, runs')).toEqual({ indices: [termIndex('run')], values: [1] });
    expect(queryVector('?!')).toBeNull();
    expect(documentVector('')).toEqual({ indices: [], values: [] });
  });

  it('hashes terms to unsigned 32-bit indices', () => {
    for (const term of ['a', 'run', '東京', 'x'.repeat(100)]) {
      const index = termIndex(term);
      expect(Number.isInteger(index) && index >= 0 && index <= 0xffffffff).toBe(true);
    }
    expect(termIndex('a')).toBe(0xe40c292c); // FNV-1a test vector
  });
});

describe('pointUuid', () => {
  it('is a deterministic version-5 UUID, distinct per id', () => {
    const uuid = pointUuid('chk_123');
    expect(uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(pointUuid('chk_123')).toBe(uuid);
    expect(pointUuid('chk_124')).not.toBe(uuid);
  });
});
