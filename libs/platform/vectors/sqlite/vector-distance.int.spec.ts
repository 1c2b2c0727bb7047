/** The index's own distance functions return, bit for bit, what sqlite-vec's return for the same float32 vectors. */
import Database from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import { seeded } from '@lore/platform/vectors/port';
import { cosineDistance, l2Distance } from './vector-distance';

describe('vector-distance: sqlite-vec arithmetic', () => {
  const db = new Database(':memory:');
  sqliteVec.load(db);
  const cosine = db.prepare('SELECT vec_distance_cosine(?, ?)').pluck(true);
  const l2 = db.prepare('SELECT vec_distance_l2(?, ?)').pluck(true);
  const blob = (v: Float32Array): Buffer => Buffer.from(v.buffer, v.byteOffset, v.byteLength);
  afterAll(() => db.close());

  it('matches vec_distance_cosine and vec_distance_l2 exactly on unit, raw and large vectors of several dimensions', () => {
    const random = seeded(42);
    let compared = 0;
    for (let t = 0; t < 3000; t++) {
      const dimensions = [384, 3, 17, 768, 1536][t % 5] as number;
      const scale = t % 7 === 0 ? 1e3 : 1;
      const a = Float32Array.from({ length: dimensions }, () => (random() - 0.5) * scale);
      const b = Float32Array.from({ length: dimensions }, () => random() - 0.5);
      if (t % 2 === 0) {
        const norm = Math.sqrt(b.reduce((s, x) => s + x * x, 0));
        for (let i = 0; i < dimensions; i++) b[i] = (b[i] as number) / norm;
      }
      expect(cosineDistance(a, b)).toBe(cosine.get(blob(a), blob(b)));
      expect(l2Distance(a, b)).toBe(l2.get(blob(a), blob(b)));
      compared++;
    }
    expect(compared).toBe(3000);
  });
});
