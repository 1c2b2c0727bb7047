import type { VectorPoint, VectorWrite } from '@lore/platform/vectors/port';
import { MemoryIndexWrites } from './memory-index-writes';

describe('the memory search index writers take turns', () => {
  it('runs one writer at a time, in the order they came', async () => {
    const writes = new MemoryIndexWrites();
    const log: string[] = [];
    let release = (): void => undefined;
    const first = writes.alone(async () => {
      log.push('first starts');
      await new Promise<void>((resolve) => (release = resolve));
      log.push('first ends');
    });
    const second = writes.alone(async () => {
      log.push('second');
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(log).toEqual(['first starts']);
    release();
    await Promise.all([first, second]);
    expect(log).toEqual(['first starts', 'first ends', 'second']);
  });

  it('gives up with 503 after its wait, without running, and the writer after it still waits for the one before', async () => {
    const writes = new MemoryIndexWrites();
    let release = (): void => undefined;
    const busy = writes.alone(() => new Promise<void>((resolve) => (release = resolve)));
    let ran = false;
    await expect(writes.alone(async () => (ran = true), 30)).rejects.toMatchObject({ code: 'unavailable' });
    expect(ran).toBe(false);
    let third = false;
    const after = writes.alone(async () => (third = true));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(third).toBe(false);
    release();
    await Promise.all([busy, after]);
    expect(third).toBe(true);
  });

  it("drops an erased memory's points from the reactor's writes until a batch starts after its keys are gone", () => {
    const writes = new MemoryIndexWrites();
    const point = (id: string): VectorPoint => ({ id, collectionId: 'p', vector: new Float32Array([1]), text: id, payload: { content_id: id, chunk_index: 0, source: 'user', tags: [], metadata: {} } });
    const batch: VectorWrite[] = [
      { op: 'upsert', index: 'm', points: [point('erased'), point('kept')] },
      { op: 'upsert', index: 'm', points: [point('erased')] },
      { op: 'delete', index: 'm', ids: ['erased'] },
    ];
    writes.batchStarted(); // the batch that read the memory before it was erased
    writes.forget(['erased']);
    expect(writes.withoutErased(batch)).toEqual([
      { op: 'upsert', index: 'm', points: [point('kept')] },
      { op: 'delete', index: 'm', ids: ['erased'] },
    ]);
    writes.batchStarted(); // started before the keys went: it may still open the memory
    writes.erasureDone();
    expect(writes.isErased('erased')).toBe(true);
    expect(writes.withoutErased(batch)).toHaveLength(2);
    writes.batchStarted(); // started after: it can neither read nor open the memory, and the record goes
    expect(writes.isErased('erased')).toBe(false);
    expect(writes.withoutErased(batch)).toEqual(batch);
  });
});
