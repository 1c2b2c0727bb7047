import { EmbeddingBatcher } from './embedding-batcher';

/** A batch function that records its batches and answers with [text length, batch number]. */
function recorder(options: { delayMs?: number; fail?: (texts: readonly string[]) => boolean } = {}) {
  const calls: string[][] = [];
  let running = 0;
  let maxRunning = 0;
  const embed = async (texts: readonly string[]): Promise<Float32Array[]> => {
    calls.push([...texts]);
    running++;
    maxRunning = Math.max(maxRunning, running);
    await new Promise((resolve) => setTimeout(resolve, options.delayMs ?? 1));
    running--;
    if (options.fail?.(texts)) throw new Error(`failed: ${texts.join(',')}`);
    return texts.map((text) => new Float32Array([text.length, calls.length]));
  };
  return { embed, calls, maxRunning: () => maxRunning };
}

describe('EmbeddingBatcher', () => {
  it('returns vectors in the caller order though it batches shortest first', async () => {
    const r = recorder();
    const batcher = new EmbeddingBatcher({ maxBatchSize: 2, maxConcurrency: 1, embed: r.embed });
    const vectors = await batcher.submit(['ccc', 'a', 'bb']);
    expect(vectors.map((v) => v[0])).toEqual([3, 1, 2]);
    expect(r.calls).toEqual([['a', 'bb'], ['ccc']]);
  });

  it('puts texts of callers in the same turn into shared batches of at most maxBatchSize', async () => {
    const r = recorder();
    const batcher = new EmbeddingBatcher({ maxBatchSize: 4, maxConcurrency: 1, embed: r.embed });
    const results = await Promise.all(['a', 'b', 'c', 'd', 'e', 'f'].map((t) => batcher.submit([t])));
    expect(results.map(([v]) => v![0])).toEqual([1, 1, 1, 1, 1, 1]);
    expect(r.calls).toEqual([['a', 'b', 'c', 'd'], ['e', 'f']]);
  });

  it('runs at most maxConcurrency batches at once', async () => {
    const r = recorder({ delayMs: 5 });
    const batcher = new EmbeddingBatcher({ maxBatchSize: 1, maxConcurrency: 3, embed: r.embed });
    await batcher.submit(Array.from({ length: 10 }, (_, i) => `t${i}`));
    expect(r.calls).toHaveLength(10);
    expect(r.maxRunning()).toBe(3);
  });

  it('takes queries before queued documents', async () => {
    const r = recorder();
    const batcher = new EmbeddingBatcher({ maxBatchSize: 2, maxConcurrency: 1, embed: r.embed });
    const documents = batcher.submit(['d1', 'd2', 'd3', 'd4']);
    const query = batcher.submit(['q'], 'query');
    await Promise.all([documents, query]);
    expect(r.calls[0]).toEqual(['q', 'd1']);
  });

  it("puts a later call's documents into the next batch, in turns with a large call queued before it", async () => {
    const r = recorder();
    const batcher = new EmbeddingBatcher({ maxBatchSize: 4, maxConcurrency: 1, embed: r.embed });
    const large = batcher.submit(Array.from({ length: 12 }, (_, i) => `a${String(i).padStart(2, '0')}`));
    // The large call's first batch is running when the small one arrives.
    await new Promise((resolve) => setImmediate(resolve));
    const small = batcher.submit(['b1', 'b2']);
    const [largeVectors, smallVectors] = await Promise.all([large, small]);
    expect(r.calls).toEqual([
      ['a00', 'a01', 'a02', 'a03'],
      ['a04', 'b1', 'a05', 'b2'],
      ['a06', 'a07', 'a08', 'a09'],
      ['a10', 'a11'],
    ]);
    expect(largeVectors.map((v) => v[0])).toEqual(Array.from({ length: 12 }, () => 3));
    expect(smallVectors.map((v) => v[1])).toEqual([2, 2]);
  });

  it('fails every text of a failed batch, and only those', async () => {
    const r = recorder({ fail: (texts) => texts.includes('bad') });
    const batcher = new EmbeddingBatcher({ maxBatchSize: 1, maxConcurrency: 1, embed: r.embed });
    const [bad, good] = await Promise.allSettled([batcher.submit(['bad']), batcher.submit(['good'])]);
    expect(bad).toMatchObject({ status: 'rejected', reason: new Error('failed: bad') });
    expect(good).toMatchObject({ status: 'fulfilled' });
  });

  it('rejects a batch answered with the wrong number of vectors', async () => {
    const batcher = new EmbeddingBatcher({ maxBatchSize: 4, maxConcurrency: 1, embed: async () => [new Float32Array(1)] });
    await expect(batcher.submit(['a', 'b'])).rejects.toThrow('returned 1 vectors for 2 texts');
  });

  it('answers [] for no texts without calling embed', async () => {
    const r = recorder();
    expect(await new EmbeddingBatcher({ maxBatchSize: 1, maxConcurrency: 1, embed: r.embed }).submit([])).toEqual([]);
    expect(r.calls).toEqual([]);
  });

  it('fails queued and later submissions once closed', async () => {
    const r = recorder();
    const batcher = new EmbeddingBatcher({ maxBatchSize: 1, maxConcurrency: 1, embed: r.embed });
    const queued = batcher.submit(['a']);
    const error = new Error('closed');
    batcher.close(error);
    await expect(queued).rejects.toBe(error);
    await expect(batcher.submit(['b'])).rejects.toBe(error);
    expect(batcher.queued).toBe(0);
  });

  it('refuses sizes that are not positive integers', () => {
    const embed = async () => [];
    expect(() => new EmbeddingBatcher({ maxBatchSize: 0, maxConcurrency: 1, embed })).toThrow(RangeError);
    expect(() => new EmbeddingBatcher({ maxBatchSize: 1, maxConcurrency: 1.5, embed })).toThrow(RangeError);
  });
});
