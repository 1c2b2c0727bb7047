// npm run probe:kill-during-delete — permanent deletion against kill -9.
// Each round starts the standalone app (dist/standalone.js) on a fresh DATA_DIR, creates
// memories, fires a burst of DELETEs and kills the process with SIGKILL a random few
// milliseconds into it, so some deletions are cut between the deletion event and the
// erasure. Lore is then started again on the same files and stopped cleanly. Every memory
// must then be either readable (its deletion never got recorded; a new DELETE erases it)
// or gone: once its DELETE, repeated as a client following a 202 would, answers 404 (its
// versions' purge resumes after the restart), no event of its stream is left, and its data key
// and its ciphertext appear in no file under DATA_DIR (read before the kill from the event log, through a read-only
// connection; only the stream's tombstone keeps its id). Knobs: PROBE_ROUNDS (default 10),
// PROBE_MEMORIES (default 40), PROBE_ENTRY (the standalone bundle, default dist/standalone.js).
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { SignJWT } from 'jose';
import { exited, startStandalone } from './lore-process.mjs';

const ROUNDS = Number(process.env.PROBE_ROUNDS ?? 10);
const MEMORIES = Number(process.env.PROBE_MEMORIES ?? 40);
const SECRET = 'probe-secret';
const ENTRY = process.env.PROBE_ENTRY ?? 'dist/standalone.js';

const start = (dataDir) => startStandalone({ entry: ENTRY, dataDir, secret: SECRET });

function filesContaining(dir, needle) {
  const bytes = Buffer.from(needle);
  const walk = (d) => readdirSync(d).flatMap((name) => (statSync(join(d, name)).isDirectory() ? walk(join(d, name)) : [join(d, name)]));
  return walk(dir).filter((file) => readFileSync(file).includes(bytes));
}

const token = await new SignJWT({ workspace_id: 'probe' }).setProtectedHeader({ alg: 'HS256' }).setSubject('probe-user').setExpirationTime('1h').sign(new TextEncoder().encode(SECRET));
const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
const totals = { deletedBeforeKill: 0, erasedAfterRestart: 0, survived: 0, recoverable: 0, lostDeletions: 0 };

for (let round = 1; round <= ROUNDS; round++) {
  const dataDir = mkdtempSync(join(tmpdir(), 'lore-probe-delete-'));
  let lore = await start(dataDir);
  const ids = [];
  for (let i = 0; i < MEMORIES; i++) {
    const res = await fetch(`${lore.url}/api/v1/memories`, { method: 'POST', headers, body: JSON.stringify({ memory: `probe ${round} ${i}` }) });
    ids.push((await res.json()).memory_id);
  }
  // What a thief with the files would look for: each memory's data key id and ciphertext.
  const log = new Database(join(dataDir, 'memory', 'events.db'), { readonly: true });
  const sealed = new Map(ids.map((id) => {
    const row = log.prepare("SELECT data FROM events WHERE stream_id = ? AND revision = 0").get(`memory-${id}`);
    const content = JSON.parse(row.data).content;
    return [id, { keyId: content.slice(0, content.indexOf(':')), ciphertext: content.split('.')[2] }];
  }));
  log.close();
  const acknowledged = new Set();
  // 202: deleted and gone from reads, its versions' purge outlasting the request's wait.
  const burst = ids.map((id) => fetch(`${lore.url}/api/v1/memories/${id}`, { method: 'DELETE', headers }).then((r) => (r.status === 200 || r.status === 202) && acknowledged.add(id), () => false));
  await new Promise((r) => setTimeout(r, 5 + Math.random() * 60));
  lore.child.kill('SIGKILL');
  await Promise.allSettled(burst);
  await exited(lore.child);
  const answered = acknowledged.size;
  totals.deletedBeforeKill += answered;

  lore = await start(dataDir);
  const statuses = await Promise.all(ids.map(async (id) => (await fetch(`${lore.url}/api/v1/memories/${id}`, { headers })).status));
  // A gone memory's versions (ciphertext under its shredded key) are purged after the restart:
  // its DELETE, repeated as a client following a 202 would, answers 404 once that is done.
  for (const [i, id] of ids.entries()) {
    if (statuses[i] !== 404) continue;
    for (let status = 202, tries = 0; status !== 404 && tries < 300; tries++) {
      status = (await fetch(`${lore.url}/api/v1/memories/${id}`, { method: 'DELETE', headers })).status;
      if (status === 202) await new Promise((r) => setTimeout(r, 100));
    }
  }
  lore.child.kill('SIGTERM');
  await exited(lore.child);
  let erased = 0;
  let recoverable = 0;
  let lost = 0;
  ids.forEach((id, i) => {
    if (acknowledged.has(id) && statuses[i] !== 404) lost++;
    if (statuses[i] === 404) {
      erased++;
      const { keyId, ciphertext } = sealed.get(id);
      const events = new Database(join(dataDir, 'memory', 'events.db'), { readonly: true });
      const left = events.prepare('SELECT count(*) AS n FROM events WHERE stream_id = ?').get(`memory-${id}`).n;
      events.close();
      if (left > 0 || filesContaining(dataDir, keyId).length > 0 || filesContaining(dataDir, ciphertext).length > 0) recoverable++;
    }
  });
  totals.erasedAfterRestart += erased;
  totals.survived += ids.length - erased;
  totals.recoverable += recoverable;
  totals.lostDeletions += lost;
  process.stdout.write(`round ${round}: ${answered} DELETEs answered before kill -9; after restart ${erased} gone, ${ids.length - erased} intact, ${recoverable} gone but on disk, ${lost} acknowledged but readable\n`);
  rmSync(dataDir, { recursive: true, force: true });
}

process.stdout.write(
  `\n${ROUNDS} rounds x ${MEMORIES} memories: ${totals.deletedBeforeKill} deletions acknowledged before the kill, ` +
    `${totals.erasedAfterRestart} gone after restart, ${totals.survived} intact (deletion never recorded), ` +
    `${totals.lostDeletions} acknowledged but readable, ${totals.recoverable} gone but still on disk\n`,
);
if (totals.recoverable > 0 || totals.lostDeletions > 0) process.exit(1);
