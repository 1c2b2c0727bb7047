import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { GENESIS_HASH, verifyStreamChain } from '@lore/platform/event-store/port';
import { openSqliteEventStore } from './sqlite-event-store.adapter';

/** The tables as they were before the hash chain: no last_hash / deleted_at, events without chain fields. */
function writePreChainFile(path: string, streamId: string, count: number): void {
  const db = new Database(path);
  db.exec(`
    CREATE TABLE events (position INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, stream_id TEXT NOT NULL,
      revision INTEGER NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL, metadata TEXT NOT NULL, recorded_at TEXT NOT NULL,
      UNIQUE (stream_id, revision));
    CREATE TABLE streams (stream_id TEXT PRIMARY KEY, revision INTEGER NOT NULL, deleted INTEGER NOT NULL DEFAULT 0) WITHOUT ROWID;
  `);
  const insert = db.prepare('INSERT INTO events (id, stream_id, revision, type, data, metadata, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?)');
  for (let r = 0; r < count; r++) insert.run(randomUUID(), streamId, r, 'test.Old', JSON.stringify({ r }), JSON.stringify({ actor: 'old' }), '2024-01-01T00:00:00.000Z');
  db.prepare('INSERT INTO streams (stream_id, revision) VALUES (?, ?)').run(streamId, count - 1);
  db.prepare("INSERT INTO streams (stream_id, revision, deleted) VALUES ('gone-1', -1, 1)").run();
  db.close();
}

describe('SQLite event store: hash chain over existing files', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'lore-chain-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('reads events written before the chain, continues the stream from the genesis value and verifies them as unchained', async () => {
    const path = join(dir, 'events.db');
    writePreChainFile(path, 'old-1', 2);
    const store = openSqliteEventStore({ path });
    try {
      expect((await store.readStream('old-1')).map((e) => e.data)).toEqual([{ r: 0 }, { r: 1 }]);
      await store.append('old-1', [{ id: randomUUID(), type: 'test.New', data: { r: 2 } }], 1);
      await store.append('old-1', [{ id: randomUUID(), type: 'test.New', data: { r: 3 } }], 'any');
      const events = await store.readStream('old-1');
      expect(events[2]?.metadata.prevHash).toBe(GENESIS_HASH);
      expect(verifyStreamChain(events)).toEqual({ ok: true, events: 4, unchained: 2 });
    } finally {
      await store.close();
    }
    const db = new Database(path, { readonly: true });
    const heads = db.prepare('SELECT stream_id, last_hash, deleted_at FROM streams ORDER BY stream_id').all();
    db.close();
    // The pre-chain tombstone keeps its unknown deletion time; the continued stream records its head hash.
    expect(heads).toEqual([
      { stream_id: 'gone-1', last_hash: null, deleted_at: null },
      { stream_id: 'old-1', last_hash: expect.stringMatching(/^[0-9a-f]{64}$/), deleted_at: null },
    ]);
  });

  it('records when a stream was deleted, keeping the first time on a repeated delete', async () => {
    const path = join(dir, 'events.db');
    let now = new Date('2025-03-01T10:00:00.000Z');
    const store = openSqliteEventStore({ path, clock: { now: () => now } });
    try {
      await store.append('doomed-1', [{ id: randomUUID(), type: 'test.New', data: {} }], 'no_stream');
      await store.deleteStream('doomed-1');
      now = new Date('2025-03-02T10:00:00.000Z');
      await store.deleteStream('doomed-1');
    } finally {
      await store.close();
    }
    const db = new Database(path, { readonly: true });
    expect(db.prepare('SELECT deleted, deleted_at FROM streams').get()).toEqual({ deleted: 1, deleted_at: '2025-03-01T10:00:00.000Z' });
    expect(db.prepare('SELECT count(*) AS n FROM events').get()).toEqual({ n: 0 });
    db.close();
  });
});
