import { randomPoolBytes, withRandomBytes } from './random-pool';
import { newId } from './ids';

describe('random pool', () => {
  it('never hands out the same bytes twice, across refills of the pool', () => {
    // 16 bytes at a time, past several refills of the 4 KiB pool.
    const seen = new Set<string>();
    for (let i = 0; i < 2000; i++) seen.add(randomPoolBytes(16).toString('hex'));
    expect(seen.size).toBe(2000);
  });

  it('gives the caller its own copy, which later draws do not overwrite', () => {
    const kept = randomPoolBytes(32);
    const copy = Buffer.from(kept);
    for (let i = 0; i < 600; i++) randomPoolBytes(16); // refills the pool underneath
    expect(kept.equals(copy)).toBe(true);
  });

  it('lends bytes in place to a reader, each range once', () => {
    const ranges = Array.from({ length: 300 }, () => withRandomBytes(16, (bytes, start) => bytes.toString('hex', start, start + 16)));
    expect(new Set(ranges).size).toBe(300);
  });

  it('refuses more than the pool holds', () => {
    expect(() => randomPoolBytes(4097)).toThrow(RangeError);
  });

  it('keeps ids unique and time-ordered', () => {
    const ids = Array.from({ length: 5000 }, (_, i) => newId('mem', 1_700_000_000_000 + i));
    expect(new Set(ids).size).toBe(5000);
    expect([...ids].sort()).toEqual(ids);
    expect(ids[0]).toMatch(/^mem_[0-9a-hjkmnp-tv-z]{26}$/);
  });
});
