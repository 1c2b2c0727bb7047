import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RecordedEvent } from '@lore/platform/kernel';
import { StreamDeletedError, WrongExpectedRevisionError } from '@lore/platform/event-store/port';
import { eventsOf, eventually } from '@lore/platform/event-store/contract';
import { openSqliteEventStore } from './sqlite-event-store.adapter';
import type { SqliteEventStore } from './sqlite-event-store.adapter';
import { AppendWriterThread } from './append-writer-thread';
import { DELETE_PAGE_BYTES } from './sqlite-stream-deletion';

/** Promises only the SQLite store makes: durability of the file, physical erasure, group commit. */
describe.each([
  ['on the caller\'s thread', false],
  ['with a writer thread', true],
])('SqliteEventStore (file), writing %s', (_mode, writerThread) => {
  let dir: string;
  let path: string;
  const opened: SqliteEventStore[] = [];
  const open = (pollIntervalMs?: number): SqliteEventStore => {
    const store = openSqliteEventStore(pollIntervalMs === undefined ? { path, writerThread } : { path, pollIntervalMs, writerThread });
    opened.push(store);
    return store;
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'lore-sqlite-es-'));
    path = join(dir, 'events.db');
  });

  afterEach(async () => {
    await Promise.all(opened.splice(0).map((s) => s.close()));
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps appended events, revisions and positions across close and reopen', async () => {
    const first = open();
    const events = eventsOf(3);
    const result = await first.append('order-1', events, 'no_stream');
    await first.close();

    const second = open();
    const read = await second.readStream('order-1');
    expect(read.map((e) => e.id)).toEqual(events.map((e) => e.id));
    expect(await second.headPosition()).toEqual(result.position);
    const next = await second.append('order-1', eventsOf(1), 2);
    expect(next.revision).toBe(3);
    expect(next.position.commit).toBe(result.position.commit + 1n);
  });

  it('keeps a deletion (tombstone) across reopen', async () => {
    const first = open();
    await first.append('order-1', eventsOf(1), 'no_stream');
    await first.deleteStream('order-1');
    await first.close();
    const second = open();
    expect(await second.readStream('order-1')).toEqual([]);
    await expect(second.append('order-1', eventsOf(1), 'any')).rejects.toBeInstanceOf(StreamDeletedError);
  });

  it('never reuses the position of a deleted last event', async () => {
    const store = open();
    await store.append('keep', eventsOf(1), 'no_stream');
    const doomed = await store.append('doomed', eventsOf(1), 'no_stream');
    await store.deleteStream('doomed');
    const next = await store.append('keep', eventsOf(1), 0);
    expect(next.position.commit).toBeGreaterThan(doomed.position.commit);
  });

  it('leaves no byte of a deleted stream in the database, -wal or -shm files', async () => {
    const store = open();
    const marker = `MARKER-${randomUUID()}`;
    const big = `${marker}:${'x'.repeat(20_000)}:${marker}`; // spills into overflow pages
    await store.append('other-1', eventsOf(20), 'no_stream');
    await store.append('secret-1', [{ id: randomUUID(), type: 'test.Secret', data: { text: marker }, metadata: { note: marker } }], 'no_stream');
    await store.append('secret-1', [{ id: randomUUID(), type: 'test.Secret', data: { text: big } }], 0);
    await store.append('other-2', eventsOf(20), 'no_stream');
    // Move the marker into the main file as well, so the test covers both places it can live.
    const other = new Database(path);
    other.pragma('wal_checkpoint(PASSIVE)');
    other.close();
    expect(readFileSync(path).includes(Buffer.from(marker))).toBe(true);

    await store.deleteStream('secret-1');

    for (const suffix of ['', '-wal', '-shm']) {
      const file = path + suffix;
      if (!existsSync(file)) continue;
      const bytes = readFileSync(file);
      expect({ file: suffix || 'db', found: bytes.includes(Buffer.from(marker)) }).toEqual({ file: suffix || 'db', found: false });
    }
    expect(await store.readStream('other-2')).toHaveLength(20);
  });

  it('deletes a long stream a page at a time: another stream\'s append issued meanwhile commits before the deletion ends', async () => {
    const store = open();
    const marker = `MARKER-${randomUUID()}`;
    for (let i = 0; i < 3; i++) {
      const events = Array.from({ length: 500 }, () => ({ id: randomUUID(), type: 'test.Secret', data: { text: marker } }));
      await store.append('doomed', events, i === 0 ? 'no_stream' : i * 500 - 1);
    }
    const order: string[] = [];
    let readWhileDeleting: RecordedEvent[] | undefined;
    const deletion = store.deleteStream('doomed').then(() => order.push('deleted'));
    // Once the deletion has begun (appends queued before it are deleted with it).
    while ((await store.readStream('doomed')).length > 0) await new Promise((resolve) => setImmediate(resolve));
    const other = store.append('other', eventsOf(1), 'no_stream').then(async () => {
      order.push('appended');
      readWhileDeleting = await store.readStream('doomed');
    });
    await Promise.all([deletion, other]);

    // One transaction for the whole stream made the append wait for all 1,500 events.
    expect(order).toEqual(['appended', 'deleted']);
    // Read meanwhile, a stream being deleted reads as deleted, not as what is left of it.
    expect(readWhileDeleting).toEqual([]);
    await expect(store.append('doomed', eventsOf(1), 'any')).rejects.toBeInstanceOf(StreamDeletedError);
    for (const suffix of ['', '-wal']) {
      if (existsSync(path + suffix)) expect({ suffix, found: readFileSync(path + suffix).includes(Buffer.from(marker)) }).toEqual({ suffix, found: false });
    }
    const raw = new Database(path, { readonly: true });
    expect(raw.prepare('SELECT deleted FROM streams WHERE stream_id = ?').get('doomed')).toEqual({ deleted: 1 });
    raw.close();
  });

  it('leaves a deletion cut short with the stream\'s last event in the log, reads it as deleted, and finishes it when run again', async () => {
    const first = open();
    await first.append('doomed', eventsOf(1200), 'no_stream');
    // What a kill after the tombstone and the first page leaves behind (oldest first, see the next test).
    const raw = new Database(path);
    raw.prepare(`UPDATE streams SET deleted = 2, deleted_at = '2026-01-01T00:00:00.000Z' WHERE stream_id = 'doomed'`).run();
    raw.prepare(`DELETE FROM events WHERE stream_id = 'doomed' AND revision < 500`).run();
    raw.close();
    await first.close();

    const second = open();
    // The erasure finds the deletion (the stream's last event) again after its checkpoint.
    expect((await second.readAll({ streamPrefixes: ['doomed'] })).at(-1)?.revision).toBe(1199);
    expect(await second.readStream('doomed')).toEqual([]);
    await expect(second.append('doomed', eventsOf(1), 'any')).rejects.toBeInstanceOf(StreamDeletedError);
    await second.deleteStream('doomed');
    const after = new Database(path, { readonly: true });
    expect(after.prepare(`SELECT count(*) AS n FROM events WHERE stream_id = 'doomed'`).get()).toEqual({ n: 0 });
    // The first deletion's time stays the stream's deletion time.
    expect(after.prepare('SELECT deleted, deleted_at FROM streams WHERE stream_id = ?').get('doomed')).toEqual({ deleted: 1, deleted_at: '2026-01-01T00:00:00.000Z' });
    after.close();
  });

  it('commits appends issued in one turn together, each checked on its own', async () => {
    const store = open();
    const appends = Array.from({ length: 200 }, (_, i) => store.append(`stream-${i % 20}`, eventsOf(1), 'any'));
    const results = await Promise.all(appends);
    const positions = new Set(results.map((r) => r.position.commit));
    expect(positions.size).toBe(200);
    // One transaction per turn: every event of the batch carries the same recording time.
    const all = await store.readAll();
    expect(all).toHaveLength(200);
    expect(new Set(all.map((e) => e.recordedAt)).size).toBe(1);

    // Sequential semantics inside a batch: the second append sees the first one's effect.
    const [a, b, c] = await Promise.allSettled([
      store.append('seq', eventsOf(1), 'no_stream'),
      store.append('seq', eventsOf(1), 'no_stream'),
      store.append('seq', eventsOf(1), 0),
    ]);
    expect(a?.status).toBe('fulfilled');
    expect(b?.status === 'rejected' && b.reason instanceof WrongExpectedRevisionError && b.reason.actual === 0).toBe(true);
    expect(c?.status === 'fulfilled' && c.value.revision === 1).toBe(true);
  });

  it('flushes pending appends on close', async () => {
    const store = open();
    const pending = store.append('order-1', eventsOf(2), 'no_stream');
    await store.close();
    await expect(pending).resolves.toMatchObject({ revision: 1 });
    const reopened = open();
    expect(await reopened.readStream('order-1')).toHaveLength(2);
  });

  it('delivers to a live subscription what another connection commits to the same file', async () => {
    const writer = open();
    const watcher = open(20);
    const seen: RecordedEvent[] = [];
    const subscription = watcher.subscribeToAll({}, async (events) => {
      seen.push(...events);
    });
    const events = eventsOf(3);
    await writer.append('order-1', events, 'no_stream');
    await eventually(() => seen.length === 3, 5_000);
    expect(seen.map((e) => e.id)).toEqual(events.map((e) => e.id));
    await subscription.close();
  });

  it('reads no page while nothing is committed, however many subscriptions are live (one watch per store, not a poll each)', async () => {
    const store = open(20);
    await store.append('order-1', eventsOf(2), 'no_stream');
    const seen: RecordedEvent[] = [];
    const subscriptions = Array.from({ length: 5 }, () => store.subscribeToAll({}, async (events) => void seen.push(...events)));
    await eventually(() => seen.length === 10);
    // The page reads of the store, counted from here (a private method: what a poll would call).
    const reads = jest.spyOn(store as unknown as { readPage: (...args: unknown[]) => unknown }, 'readPage');
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(reads).not.toHaveBeenCalled();
    await store.append('order-2', eventsOf(1), 'no_stream');
    await eventually(() => seen.length === 15);
    // Per subscription: the page, and the read that finds nothing after it; plus, with the writer
    // thread, one spare wake when the watch sees the commit before the append has settled here
    // (OtherCommitsWatch). A poll would read again every interval.
    expect(reads.mock.calls.length).toBeLessThanOrEqual(15);
    reads.mockRestore();
    await Promise.all(subscriptions.map((s) => s.close()));
  });

  it('delivers another connection\'s commit even when a commit of its own, to other streams, lands after it before the watch looks', async () => {
    const other = open();
    const watcher = open(300);
    const seen: RecordedEvent[] = [];
    const subscription = watcher.subscribeToAll({ streamPrefixes: ['a-'] }, async (events) => void seen.push(...events));
    await new Promise((resolve) => setTimeout(resolve, 30)); // caught up (nothing yet), asleep
    const theirs = eventsOf(1);
    await other.append('a-1', theirs, 'no_stream');
    await watcher.append('z-1', eventsOf(1), 'no_stream'); // a later position, and no wake for 'a-'
    await eventually(() => seen.length === 1, 3_000);
    expect(seen[0]?.id).toBe(theirs[0]?.id);
    await subscription.close();
  });

  it('counts a retried append as none of its own: the other connection\'s events between its events still wake', async () => {
    const other = open();
    const watcher = open(300);
    const seen: RecordedEvent[] = [];
    const subscription = watcher.subscribeToAll({ streamPrefixes: ['a-'] }, async (events) => void seen.push(...events));
    await new Promise((resolve) => setTimeout(resolve, 30));
    // Positions: z-2's first event (its own), a-3's (the other's), z-2's second (its own); then it
    // retries z-2's two events, stored already: the answer names the second's position, so the
    // two positions before it would look like its own if a retry counted.
    const [first, second] = eventsOf(2);
    const theirs = eventsOf(1);
    await watcher.append('z-2', [first!], 'no_stream');
    await other.append('a-3', theirs, 'no_stream');
    await watcher.append('z-2', [second!], 0);
    await watcher.append('z-2', [first!, second!], 'any');
    await eventually(() => seen.length === 1, 3_000);
    expect(seen[0]?.id).toBe(theirs[0]?.id);
    await subscription.close();
  });

  it('pages a long catch-up without losing or repeating events', async () => {
    const store = openSqliteEventStore({ path, pageSize: 7, writerThread });
    opened.push(store);
    for (let i = 0; i < 10; i++) await store.append(i % 2 === 0 ? `even-${i}` : `odd-${i}`, eventsOf(5), 'no_stream');
    const seen: RecordedEvent[] = [];
    const batches: number[] = [];
    const subscription = store.subscribeToAll({ streamPrefixes: ['odd-'] }, async (events) => {
      seen.push(...events);
      batches.push(events.length);
    });
    await eventually(() => seen.length === 25);
    const expected = (await store.readAll({ streamPrefixes: ['odd-'] })).map((e) => e.id);
    expect(seen.map((e) => e.id)).toEqual(expected);
    expect(Math.max(...batches)).toBeLessThanOrEqual(7);
    await subscription.close();
  });

  it('rejects work after close', async () => {
    const store = open();
    await store.close();
    await expect(store.append('order-1', eventsOf(1), 'any')).rejects.toMatchObject({ code: 'unavailable' });
    await expect(store.readAll()).rejects.toMatchObject({ code: 'unavailable' });
  });
});

describe('SqliteEventStore deleting a long stream when it is closed', () => {
  it('stops between pages, oldest first: the stream\'s last event, its deletion, stays in the log for the erasure to run again', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lore-sqlite-es-'));
    const path = join(dir, 'events.db');
    try {
      const store = openSqliteEventStore({ path });
      await store.append('doomed', eventsOf(1200), 'no_stream');
      const deletion = store.deleteStream('doomed');
      await store.close();
      await expect(deletion).rejects.toThrow(/closed/);
      const raw = new Database(path, { readonly: true });
      const left = raw.prepare(`SELECT min(revision) AS first, max(revision) AS last, count(*) AS n FROM events WHERE stream_id = 'doomed'`).get();
      expect({ left, state: raw.prepare(`SELECT deleted FROM streams WHERE stream_id = 'doomed'`).get() }).toEqual({ left: { first: 500, last: 1199, n: 700 }, state: { deleted: 2 } });
      raw.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('SqliteEventStore deleting a long stream when a page fails', () => {
  it('reads what is left of it as deleted until the deletion is run again', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lore-sqlite-es-'));
    const path = join(dir, 'events.db');
    const store = openSqliteEventStore({ path });
    try {
      await store.append('doomed', eventsOf(1200), 'no_stream');
      // The second page fails, as one does when another connection holds the write lock past the
      // busy timeout or the writer thread is gone.
      const steps = store as unknown as { deletionStep: (step: { op: string }) => Promise<unknown> };
      const step = steps.deletionStep.bind(store);
      let pages = 0;
      const spy = jest.spyOn(steps, 'deletionStep').mockImplementation(async (s) => {
        if (s.op === 'delete-page' && ++pages === 2) throw new Error('database is locked');
        return step(s);
      });
      await expect(store.deleteStream('doomed')).rejects.toThrow('database is locked');
      spy.mockRestore();
      // What is left (revisions 500 to 1199) is no stream's start: it reads as deleted.
      expect(await store.readStream('doomed')).toEqual([]);
      await store.deleteStream('doomed');
      const raw = new Database(path, { readonly: true });
      expect(raw.prepare(`SELECT count(*) AS n FROM events WHERE stream_id = 'doomed'`).get()).toEqual({ n: 0 });
      raw.close();
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('SqliteEventStore deleting a stream of large events', () => {
  it('takes a page of at most DELETE_PAGE_BYTES of them (past the first), not 500 whatever their size', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lore-sqlite-es-'));
    const store = openSqliteEventStore({ path: join(dir, 'events.db') });
    try {
      // A content's chunk events carry their vectors: 40 events of ~100 KB, 4 MB in all.
      const big = Array.from({ length: 40 }, () => ({ id: randomUUID(), type: 'test.Chunk', data: { vector: 'x'.repeat(100_000) } }));
      await store.append('doomed', big, 'no_stream');
      const steps = store as unknown as { deletionStep: (step: { op: string }) => Promise<unknown> };
      const step = steps.deletionStep.bind(store);
      let pages = 0;
      jest.spyOn(steps, 'deletionStep').mockImplementation(async (s) => {
        if (s.op === 'delete-page') pages++;
        return step(s);
      });
      await store.deleteStream('doomed');
      expect(pages).toBeGreaterThanOrEqual(Math.ceil((40 * 100_000) / DELETE_PAGE_BYTES));
      expect(await store.readStream('doomed')).toEqual([]);
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('SqliteEventStore with a writer thread', () => {
  it('waits for the write lock on its own thread: the caller\'s event loop keeps running', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lore-sqlite-es-'));
    const path = join(dir, 'events.db');
    const store = openSqliteEventStore({ path, writerThread: true });
    try {
      await store.append('warm', eventsOf(1), 'no_stream');
      // Another connection (another process, say) holds the write lock for 600 ms. On the
      // caller's thread the append would wait inside SQLite's busy handler, and so would every
      // timer and request of the process; this holder could not even let go on time.
      const holder = new Database(path);
      holder.exec('BEGIN IMMEDIATE');
      let longestGap = 0;
      let last = performance.now();
      const ticker = setInterval(() => {
        const now = performance.now();
        longestGap = Math.max(longestGap, now - last);
        last = now;
      }, 10);
      const release = new Promise<void>((resolve) => setTimeout(() => {
        holder.exec('ROLLBACK');
        holder.close();
        resolve();
      }, 600));
      const appended = store.append('order-1', eventsOf(1), 'no_stream');
      await release;
      await expect(appended).resolves.toMatchObject({ revision: 0 });
      clearInterval(ticker);
      expect(longestGap).toBeLessThan(300);
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('opens the store again on a new writer thread when its thread has gone', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lore-sqlite-es-'));
    const path = join(dir, 'events.db');
    const store = openSqliteEventStore({ path, writerThread: true });
    try {
      await store.append('order-1', eventsOf(1), 'no_stream');
      // The process's writer thread ends, as a crashed one would.
      const { thread, handle } = await AppendWriterThread.open(path);
      await thread.close(handle);
      await thread.terminate();
      expect(thread.failed).toBe(true);
      await expect(store.append('order-1', eventsOf(1), 0)).resolves.toMatchObject({ revision: 1 });
      expect(await store.readStream('order-1')).toHaveLength(2);
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
