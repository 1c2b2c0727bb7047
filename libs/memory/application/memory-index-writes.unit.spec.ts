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
});
