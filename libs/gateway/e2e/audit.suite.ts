import { join } from 'node:path';
import Database from 'better-sqlite3';
import { call, mintJwt, unique, type LoreUnderTest } from './e2e-client';

interface Workspace {
  readonly id: string;
  readonly token: string;
}

async function adminOf(lore: LoreUnderTest): Promise<Workspace> {
  const id = unique('ws');
  return { id, token: await mintJwt(lore.jwtSecret, { sub: unique('operator'), workspace_id: id, roles: ['admin'] }) };
}

async function createMemory(lore: LoreUnderTest, ws: Workspace, text: string): Promise<string> {
  const reply = await call(lore, 'POST', '/api/v1/memories', { token: ws.token, body: { memory: text } });
  expect(reply.status).toBe(201);
  return reply.body.memory_id as string;
}

/**
 * Edits one stored event of a memory stream with SQLite directly, as someone with the file
 * would (its actor rewritten): the chain breaks at that revision. The service keeps running.
 */
export function tamperMemory(dataDir: string, memoryId: string): void {
  const db = new Database(join(dataDir, 'memory', 'events.db'));
  try {
    const changed = db.prepare(`UPDATE events SET metadata = json_set(metadata, '$.actor', 'user:mallory') WHERE stream_id = ? AND revision = 0`).run(`memory-${memoryId}`);
    expect(changed.changes).toBe(1);
  } finally {
    db.close();
  }
}

const verify = (lore: LoreUnderTest, token: string, query = '') => call(lore, 'GET', `/api/v1/admin/audit/verify${query}`, { token });

/**
 * `GET /api/v1/admin/audit/verify` (README "Audit and tamper evidence"): the caller's workspace's
 * streams only, in every context; a tampered stream is reported broken, another workspace's
 * never. `dataDir` is where the contexts keep their SQLite event stores.
 */
export function describeAuditVerify(lore: () => LoreUnderTest, options: { readonly dataDir: () => string }): void {
  describe('admin: audit verify', () => {
    it("checks every context's streams of the workspace, reports a tampered one, and never another workspace's", async () => {
      const mine = await adminOf(lore());
      const theirs = await adminOf(lore());
      const [first, second] = [await createMemory(lore(), mine, 'Prefers green tea'), await createMemory(lore(), mine, 'Lives in Lyon')];
      expect((await call(lore(), 'POST', '/api/v1/collections', { token: mine.token, body: { name: 'Handbook' } })).status).toBe(201);
      expect((await call(lore(), 'POST', '/api/v1/conversations', { token: mine.token, body: {} })).status).toBe(201);
      expect((await call(lore(), 'POST', '/api/v1/api-keys', { token: mine.token, body: { label: 'ci', permissions: ['memories:read'] } })).status).toBe(201);
      const foreign = await createMemory(lore(), theirs, 'Not yours');

      const clean = await verify(lore(), mine.token);
      expect(clean.status).toBe(200);
      expect(clean.body).toMatchObject({ ok: true, truncated: false, next_cursor: null });
      const counts = Object.fromEntries((clean.body.contexts as { context: string; streams: number; broken: unknown[] }[]).map((c) => [c.context, c.streams]));
      expect(counts).toEqual({ keys: 1, knowledge: 1, connections: 0, conversations: 1, memory: 2 });

      tamperMemory(options.dataDir(), second);
      tamperMemory(options.dataDir(), foreign);
      const tampered = await verify(lore(), mine.token);
      expect(tampered.status).toBe(200);
      expect(tampered.body.ok).toBe(false);
      const memory = (tampered.body.contexts as { context: string }[]).find((c) => c.context === 'memory');
      expect(memory).toMatchObject({ streams: 2, deleted: 0, broken: [{ stream_id: `memory-${second}`, first_bad_revision: 0, reason: expect.stringContaining('does not match its hash') }] });
      // Only ids, counts and reasons: neither the other workspace's stream nor any event's data.
      const text = JSON.stringify(tampered.body);
      expect(text).not.toContain(foreign);
      expect(text).not.toContain(first);
      expect(text).not.toContain('mallory');

      // The other workspace's administrator sees its own broken stream, and only it.
      const other = await verify(lore(), theirs.token);
      expect(other.body.ok).toBe(false);
      expect((other.body.contexts as { broken: { stream_id: string }[] }[]).flatMap((c) => c.broken.map((b) => b.stream_id))).toEqual([`memory-${foreign}`]);
    });

    it('pages by cursor under a stream cap until every stream is checked once', async () => {
      const ws = await adminOf(lore());
      const ids = [await createMemory(lore(), ws, 'one'), await createMemory(lore(), ws, 'two'), await createMemory(lore(), ws, 'three')];
      let cursor: string | null = null;
      let memoryStreams = 0;
      let pages = 0;
      do {
        const page: { status: number; body: { truncated: boolean; next_cursor: string | null; contexts: { context: string; streams: number }[] } } = await verify(
          lore(),
          ws.token,
          `?limit=2${cursor === null ? '' : `&cursor=${cursor}`}`,
        );
        expect(page.status).toBe(200);
        expect(page.body.truncated).toBe(page.body.next_cursor !== null);
        for (const c of page.body.contexts) expect(c.streams).toBeLessThanOrEqual(2);
        memoryStreams += page.body.contexts.find((c) => c.context === 'memory')?.streams ?? 0;
        cursor = page.body.next_cursor;
        pages++;
      } while (cursor !== null && pages < 5);
      expect({ memoryStreams, pages }).toEqual({ memoryStreams: ids.length, pages: 2 });
    });

    it('refuses a member (403) and a cursor it did not issue (422)', async () => {
      const ws = await adminOf(lore());
      const member = await mintJwt(lore().jwtSecret, { sub: unique('member'), workspace_id: ws.id });
      const refused = await verify(lore(), member);
      expect(refused.status).toBe(403);
      expect(typeof refused.body.detail).toBe('string');
      const bad = await verify(lore(), ws.token, '?cursor=bm90LWEtY3Vyc29y');
      expect(bad.status).toBe(422);
      expect(bad.body.detail[0].loc).toEqual(['query', 'cursor']);
    });
  });
}
