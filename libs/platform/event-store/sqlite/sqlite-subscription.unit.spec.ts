import { SqliteSubscription, type LogPage } from './sqlite-subscription';

/** A reader that counts its reads and never finds an event (the log as a filtered subscription sees it). */
function countingReader(): { reads: () => number; readPage: () => LogPage } {
  let reads = 0;
  return {
    reads: () => reads,
    readPage: () => {
      reads++;
      return { events: [], scannedTo: 0n, more: false };
    },
  };
}

const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('SqliteSubscription.wake', () => {
  const settings = { pageSize: 10 };

  it('caught up, reads nothing more until woken (no timer of its own)', async () => {
    const reader = countingReader();
    const subscription = new SqliteSubscription(reader, -1n, async () => undefined, () => undefined, settings, () => undefined);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(reader.reads()).toBe(1);
    subscription.wake();
    await settle();
    expect(reader.reads()).toBe(2);
    await subscription.close();
  });

  it('reads again after a commit to a stream it reads, and stays asleep after commits to other streams', async () => {
    const reader = countingReader();
    const subscription = new SqliteSubscription(reader, -1n, async () => undefined, () => undefined, settings, () => undefined, ['content-', 'collection-']);
    await settle();
    const first = reader.reads();
    expect(first).toBe(1);

    subscription.wake(['memory-1', 'conversation-2']);
    await settle();
    expect(reader.reads()).toBe(first);

    subscription.wake(['memory-1', 'content-7']);
    await settle();
    expect(reader.reads()).toBe(first + 1);
    await subscription.close();
  });

  it('without prefixes (every stream), or told no streams, wakes on any commit', async () => {
    const everything = countingReader();
    const all = new SqliteSubscription(everything, -1n, async () => undefined, () => undefined, settings, () => undefined);
    const filtered = countingReader();
    const some = new SqliteSubscription(filtered, -1n, async () => undefined, () => undefined, settings, () => undefined, ['content-']);
    await settle();
    all.wake(['memory-1']);
    some.wake();
    await settle();
    expect(everything.reads()).toBe(2);
    expect(filtered.reads()).toBe(2);
    await Promise.all([all.close(), some.close()]);
  });
});
