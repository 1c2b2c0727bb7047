import { randomUUID } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openSqliteEventStore } from '@lore/platform/event-store/sqlite';
import { openSqliteDocumentStore } from '@lore/platform/documents/sqlite';
import { runAudit } from './audit';

const SEALED_KEPT = 'dk_kept:v1.aaaa.bbbb.cccc';
const SEALED_GONE = 'dk_gone:v1.dddd.eeee.ffff';

async function run(dataDir: string, argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const env = { ...process.env, DATA_DIR: dataDir, EVENTSTORE_URL: '' };
  const code = await runAudit(argv, { env, stdout: { write: (t: string) => (out += t) > '' }, stderr: { write: (t: string) => (err += t) > '' } });
  return { code, out, err };
}

const lines = (out: string): Array<Record<string, unknown>> => out.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);

/** A clock the test moves, so events of two contexts interleave in recorded time. */
function steppingClock(start: string): { now: () => Date } {
  let t = Date.parse(start);
  return { now: () => new Date((t += 1000)) };
}

/**
 * DATA_DIR with two contexts written through the real adapters: memory (a 4-event stream,
 * a sealed field whose key exists and one whose key was shredded, a deleted stream, a
 * stream from before the chain) and keys (one event).
 */
async function seedDataDir(): Promise<string> {
  const dataDir = mkdtempSync(join(tmpdir(), 'lore-audit-'));
  for (const context of ['memory', 'keys']) mkdirSync(join(dataDir, context), { recursive: true });
  const memory = openSqliteEventStore({ path: join(dataDir, 'memory', 'events.db'), clock: steppingClock('2025-01-01T00:00:00Z') });
  const keys = openSqliteEventStore({ path: join(dataDir, 'keys', 'events.db'), clock: steppingClock('2025-01-01T00:00:01.500Z') });
  const meta = { actor: 'user:alice', workspaceId: 'ws-1' };
  await memory.append('memory-mem_1', [{ id: randomUUID(), type: 'memory.MemoryCreated', data: { content: SEALED_KEPT, n: 0 }, metadata: meta }], 'no_stream');
  await keys.append('apikey-key_1', [{ id: randomUUID(), type: 'keys.ApiKeyIssued', data: { label: 'k' }, metadata: { actor: 'user:bob', workspaceId: 'ws-2', requestId: 'req-9', correlationId: 'req-9', causationId: 'ev-cause' } }], 'no_stream');
  for (let n = 1; n < 4; n++) await memory.append('memory-mem_1', [{ id: randomUUID(), type: 'memory.MemoryReplaced', data: { content: SEALED_GONE, n }, metadata: meta }], n - 1);
  await memory.append('memory-mem_2', [{ id: randomUUID(), type: 'memory.MemoryCreated', data: {}, metadata: meta }], 'no_stream');
  await memory.deleteStream('memory-mem_2');
  await Promise.all([memory.close(), keys.close()]);
  const keyring = openSqliteDocumentStore({ path: join(dataDir, 'memory', 'keyring.db'), durability: 'full' });
  await keyring.write([{ collection: 'data_keys', op: 'upsert', doc: { id: 'dk_kept', wrapped: 'x' } }]);
  await keyring.close();
  // A stream written before the hash chain existed: rows without chain fields, no head hash.
  const db = new Database(join(dataDir, 'memory', 'events.db'));
  db.prepare("INSERT INTO events (id, stream_id, revision, type, data, metadata, recorded_at) VALUES (?, 'memory-mem_0', 0, 'memory.MemoryCreated', '{}', '{}', '2024-06-01T00:00:00.000Z')").run(randomUUID());
  db.prepare("INSERT INTO streams (stream_id, revision, deleted) VALUES ('memory-mem_0', 0, 0)").run();
  db.close();
  return dataDir;
}

/** A copy of the DATA_DIR whose memory event store `tamper` edits with SQLite directly. */
function tampered(dataDir: string, tamper: (db: Database.Database) => void): string {
  const copy = mkdtempSync(join(tmpdir(), 'lore-audit-tampered-'));
  cpSync(dataDir, copy, { recursive: true });
  const db = new Database(join(copy, 'memory', 'events.db'));
  tamper(db);
  db.close();
  return copy;
}

describe('npm run audit', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await seedDataDir();
  });

  it('replays every context in recorded-time order, one JSON line per event, sealed values masked', async () => {
    const { code, out, err } = await run(dataDir, []);
    expect({ code, err }).toEqual({ code: 0, err: '' });
    const events = lines(out);
    // Within a context, its global order (the pre-chain row was inserted last); across contexts, by time.
    expect(events.map((e) => `${String(e.context)}:${String(e.stream)}@${String(e.revision)}`)).toEqual([
      'memory:memory-mem_1@0',
      'memory:memory-mem_1@1',
      'keys:apikey-key_1@0',
      'memory:memory-mem_1@2',
      'memory:memory-mem_1@3',
      'memory:memory-mem_0@0',
    ]);
    expect(events[0]).toEqual({
      context: 'memory',
      stream: 'memory-mem_1',
      revision: 0,
      position: expect.stringMatching(/^\d+$/),
      type: 'memory.MemoryCreated',
      recordedAt: '2025-01-01T00:00:01.000Z',
      actor: 'user:alice',
      workspace: 'ws-1',
      requestId: null,
      correlationId: null,
      causationId: null,
      data: { content: '[sealed dk_kept]', n: 0 },
    });
    expect(events[1]?.data).toEqual({ content: '[erased]', n: 1 });
    expect(events.find((e) => e.stream === 'apikey-key_1')).toMatchObject({ actor: 'user:bob', requestId: 'req-9', correlationId: 'req-9', causationId: 'ev-cause' });
    expect(out).not.toContain('aaaa');
  });

  it('filters by context, stream, aggregate, type, actor, workspace and time', async () => {
    const count = async (argv: string[]): Promise<number> => lines((await run(dataDir, argv)).out).length;
    expect(await count(['--context', 'keys'])).toBe(1);
    expect(await count(['--stream', 'memory-mem_1'])).toBe(4);
    expect(await count(['--aggregate', 'mem_1'])).toBe(4);
    expect(await count(['--type', 'memory.MemoryReplaced'])).toBe(3);
    expect(await count(['--actor', 'user:bob'])).toBe(1);
    expect(await count(['--workspace', 'ws-1'])).toBe(4);
    expect(await count(['--since', '2025-01-01T00:00:02Z', '--until', '2025-01-01T00:00:03.000Z'])).toBe(3);
    expect(await count(['--since', '2025-01-01T00:00:02.1Z', '--until', '2025-01-01T00:00:02.9Z'])).toBe(1);
    expect((await run(dataDir, ['--format', 'csv'])).code).toBe(1);
    expect((await run(dataDir, ['--context', 'nope'])).err).toContain('unknown context nope');
  });

  it('prints a readable table', async () => {
    const { code, out } = await run(dataDir, ['--format', 'table', '--stream', 'memory-mem_1']);
    expect(code).toBe(0);
    const rows = out.trim().split('\n');
    expect(rows[0]).toMatch(/^recorded at\s+context\s+stream@revision/);
    expect(rows).toHaveLength(5);
    expect(rows[1]).toContain('memory-mem_1@0');
    expect(rows[1]).toContain('[sealed dk_kept]');
  });

  it('verify: counts streams and events, names pre-chain events and deleted streams, exits 0 on intact chains', async () => {
    const { code, out } = await run(dataDir, ['verify']);
    expect(code).toBe(0);
    expect(out).toContain('memory: OK');
    expect(out).toContain('  streams checked: 2\n  events: 5\n  unchained (written before the hash chain): 1 event in 1 stream');
    expect(out).toMatch(/deleted streams: 1\n {4}memory-mem_2 deleted at 2025-01-01T\d\d:\d\d:\d\d\.\d{3}Z/);
    expect(out).toContain('keys: OK');
    expect(out).toContain('verify: every chain is intact');
  });

  it('verify names the stream and revision of an event edited in the middle of a stream', async () => {
    const copy = tampered(dataDir, (db) => db.prepare(`UPDATE events SET data = '{"content":"forged","n":2}' WHERE stream_id = 'memory-mem_1' AND revision = 2`).run());
    const { code, out } = await run(copy, ['verify', '--context', 'memory']);
    expect(code).toBe(1);
    expect(out).toContain('broken: memory-mem_1 at revision 2: content does not match its hash');
    expect(out).not.toContain('keys:');
  });

  it('verify detects a deleted middle event, a cut-off tail and a forged actor', async () => {
    const middle = tampered(dataDir, (db) => db.prepare(`DELETE FROM events WHERE stream_id = 'memory-mem_1' AND revision = 1`).run());
    expect((await run(middle, ['verify'])).out).toContain('broken: memory-mem_1 at revision 1: revision 1 is missing');
    const tail = tampered(dataDir, (db) => db.prepare(`DELETE FROM events WHERE stream_id = 'memory-mem_1' AND revision = 3`).run());
    const cut = await run(tail, ['verify']);
    expect(cut.code).toBe(1);
    expect(cut.out).toContain('broken: memory-mem_1 at revision 3: events after revision 2 are missing');
    const actor = tampered(dataDir, (db) => db.prepare(`UPDATE events SET metadata = json_set(metadata, '$.actor', 'user:mallory') WHERE stream_id = 'memory-mem_1' AND revision = 0`).run());
    expect((await run(actor, ['verify'])).out).toContain('broken: memory-mem_1 at revision 0');
  });

  it('verify lists a deletion under way with the events it has left; events left by a finished deletion stay a finding', async () => {
    // A stream's deletion removes its events a page at a time after its tombstone (deleted = 2).
    const underWay = tampered(dataDir, (db) => db.prepare(`UPDATE streams SET deleted = 2, deleted_at = '2025-02-01T00:00:00.000Z' WHERE stream_id = 'memory-mem_1'`).run());
    const listed = await run(underWay, ['verify', '--context', 'memory']);
    expect(listed.code).toBe(0);
    expect(listed.out).toContain('deleted streams: 2\n    memory-mem_1 deleted at 2025-02-01T00:00:00.000Z; being deleted, 4 events left\n    memory-mem_2 deleted at');
    const finished = tampered(dataDir, (db) => db.prepare(`UPDATE streams SET deleted = 1 WHERE stream_id = 'memory-mem_1'`).run());
    const found = await run(finished, ['verify', '--context', 'memory']);
    expect(found.code).toBe(1);
    expect(found.out).toContain('broken: memory-mem_1 at revision 0: events of a stream recorded as deleted');
  });

  it('reads while Lore holds the store open and keeps writing', async () => {
    const store = openSqliteEventStore({ path: join(dataDir, 'keys', 'events.db') });
    try {
      await store.append('apikey-key_2', [{ id: randomUUID(), type: 'keys.ApiKeyIssued', data: {} }], 'no_stream');
      const { code, out } = await run(dataDir, ['--context', 'keys']);
      expect(code).toBe(0);
      expect(lines(out).map((e) => e.stream)).toEqual(['apikey-key_1', 'apikey-key_2']);
      expect((await run(dataDir, ['verify', '--context', 'keys'])).code).toBe(0);
    } finally {
      await store.close();
    }
  });
});
