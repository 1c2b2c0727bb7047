// npm run probe:kill-during-stream-deletion — a long stream's deletion against kill -9.
// A stream's deletion removes its events a page at a time after its tombstone
// (libs/platform/event-store/sqlite/sqlite-stream-deletion.ts). Each round starts the
// standalone app (dist/standalone.js) on a fresh DATA_DIR, writes a conversation of
// PROBE_MESSAGES messages (default 3,000: six pages of events), deletes it, and kills the
// process with SIGKILL as soon as its stream is tombstoned with events left (watched through a
// read-only connection). Lore is then started again on the same files. The deletion must finish
// by itself: the DELETE, repeated as a client following a 202 would, ends in 404, no event of
// the stream is left, its tombstone says deleted (1), and no file under DATA_DIR holds a word
// of its messages. Exits 1 otherwise. Deleting newest first (e2f0077, before 6e1db6a) removed
// the deletion event with the first page: this probe found 2,502 of the stream's 3,001 events
// left for good, its tombstone at 2, while the DELETE answered 404. Knobs: PROBE_ROUNDS (default 3), PROBE_MESSAGES,
// PROBE_ENTRY (the standalone bundle, default dist/standalone.js).
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { SignJWT } from 'jose';
import { exited, startStandalone } from './lore-process.mjs';
import { stopChild } from '../bench/load.mjs';

const ROUNDS = Number(process.env.PROBE_ROUNDS ?? 3);
const MESSAGES = Number(process.env.PROBE_MESSAGES ?? 3000);
const ENTRY = process.env.PROBE_ENTRY ?? 'dist/standalone.js';
const SECRET = 'probe-stream-deletion';

async function call(url, token, method, path, body) {
  const res = await fetch(url + path, { method, headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  let answer = null;
  try {
    answer = text === '' ? null : JSON.parse(text);
  } catch {
    answer = text;
  }
  return { status: res.status, body: answer };
}

function filesContaining(dir, needle) {
  const bytes = Buffer.from(needle);
  const walk = (d) => readdirSync(d).flatMap((name) => (statSync(join(d, name)).isDirectory() ? walk(join(d, name)) : [join(d, name)]));
  return walk(dir).filter((file) => readFileSync(file).includes(bytes));
}

async function round(n, token) {
  const dataDir = mkdtempSync(join(tmpdir(), 'lore-probe-stream-deletion-'));
  let lore = await startStandalone({ entry: ENTRY, dataDir, secret: SECRET });
  try {
    const conversation = (await call(lore.url, token, 'POST', '/api/v1/conversations', { title: 'long' })).body.id;
    const marker = `lanternword${n}x${Date.now()}`;
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < MESSAGES) {
          const i = next++;
          const r = await call(lore.url, token, 'POST', `/api/v1/conversations/${conversation}/messages`, { content: `Message ${i} about the ${marker} of the harbour.` });
          if (r.status !== 201) throw new Error(`message ${i} answered ${r.status}`);
        }
      }),
    );
    const stream = `conversation-${conversation}`;
    const watch = new Database(join(dataDir, 'conversations', 'events.db'), { readonly: true });
    const state = () => ({ ...watch.prepare('SELECT deleted FROM streams WHERE stream_id = ?').get(stream), left: watch.prepare('SELECT count(*) AS n FROM events WHERE stream_id = ?').get(stream).n });
    const total = state().left;
    const deletion = call(lore.url, token, 'DELETE', `/api/v1/conversations/${conversation}`).catch(() => null);
    let killedAt = null;
    for (const until = Date.now() + 120_000; killedAt === null && Date.now() < until; ) {
      const now = state();
      if (now.deleted === 2 && now.left > 0 && now.left < total) killedAt = now.left;
      else await new Promise((resolve) => setTimeout(resolve, 1));
    }
    lore.child.kill('SIGKILL');
    await exited(lore.child);
    await deletion;
    // What the kill left, not what the watch saw before it: the deletion may have ended between the two.
    const cut = state();
    watch.close();
    if (killedAt === null || cut.deleted !== 2 || cut.left === 0) {
      return { round: n, violations: [`the kill did not cut the deletion short (${total} events; deleted = ${cut.deleted}, ${cut.left} left): raise PROBE_MESSAGES`] };
    }
    killedAt = cut.left;

    lore = await startStandalone({ entry: ENTRY, dataDir, secret: SECRET });
    let status = null;
    const started = Date.now();
    while (Date.now() - started < 120_000) {
      status = (await call(lore.url, token, 'DELETE', `/api/v1/conversations/${conversation}`)).status;
      if (status === 404) break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    await stopChild(lore.child);
    const after = new Database(join(dataDir, 'conversations', 'events.db'), { readonly: true });
    const end = { ...after.prepare('SELECT deleted FROM streams WHERE stream_id = ?').get(stream), left: after.prepare('SELECT count(*) AS n FROM events WHERE stream_id = ?').get(stream).n };
    after.close();
    const files = filesContaining(dataDir, marker).map((file) => file.slice(dataDir.length + 1));
    const violations = [
      ...(status === 404 ? [] : [`the repeated DELETE answered ${status} after 120 s`]),
      ...(end.left === 0 ? [] : [`${end.left} events of the stream left`]),
      ...(end.deleted === 1 ? [] : [`the tombstone says deleted = ${end.deleted}`]),
      ...files.map((file) => `a word of its messages in ${file}`),
    ];
    process.stdout.write(`round ${n}: killed with ${killedAt} of ${total} events left; after restart the DELETE answered 404 in ${((Date.now() - started) / 1000).toFixed(1)} s, ${end.left} events left, deleted = ${end.deleted}, ${files.length} files with a word of it\n`);
    return { round: n, violations };
  } finally {
    if (lore.child.exitCode === null && lore.child.signalCode === null) await stopChild(lore.child);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const token = await new SignJWT({ workspace_id: 'ws-probe' }).setProtectedHeader({ alg: 'HS256' }).setSubject('user-probe').setIssuedAt().setExpirationTime('2h').sign(new TextEncoder().encode(SECRET));
const results = [];
for (let n = 1; n <= ROUNDS; n++) results.push(await round(n, token));
const violations = results.flatMap((r) => r.violations.map((v) => `round ${r.round}: ${v}`));
process.stdout.write(`\n${ROUNDS} rounds x ${MESSAGES} messages: ${violations.length} violations\n${violations.join('\n')}${violations.length > 0 ? '\n' : ''}`);
process.exit(violations.length > 0 ? 1 : 0);
