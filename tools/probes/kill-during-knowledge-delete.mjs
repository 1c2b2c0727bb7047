// npm run probe:kill-during-knowledge-delete — knowledge erasure against kill -9.
// Each round starts the standalone app on a fresh DATA_DIR with the local model (MODELS_DIR),
// adds contents to two collections, each text holding a word of its own, waits until they are
// searchable, then fires a burst of DELETEs (contents of the first collection, and the whole
// second collection) and kills the process with SIGKILL a random few milliseconds into it.
// Lore is started again on the same files, each deleted content's DELETE repeated until it
// answers 404 (what the kill cut short is finished), and Lore is stopped cleanly. Every content must then be either readable (its deletion never got
// recorded) or erased: no event of its stream left, and its word in no file under DATA_DIR
// (the log, the read models, the search indexes and their WAL files). An acknowledged
// deletion must never be readable. Knobs: PROBE_ROUNDS (default 5), PROBE_CONTENTS (per
// collection, default 10), PROBE_ENTRY (the standalone bundle, default dist/standalone.js).
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { SignJWT } from 'jose';
import { exited, startStandalone } from './lore-process.mjs';

const ROUNDS = Number(process.env.PROBE_ROUNDS ?? 5);
const CONTENTS = Number(process.env.PROBE_CONTENTS ?? 10);
const SECRET = 'probe-secret';
const ENTRY = process.env.PROBE_ENTRY ?? 'dist/standalone.js';
const MODELS_DIR = process.env.MODELS_DIR ?? join(process.cwd(), '..', 'shared', 'models');

const start = (dataDir) => startStandalone({ entry: ENTRY, dataDir, secret: SECRET, env: { MODELS_DIR, HF_HUB_OFFLINE: '1' } });

function filesContaining(dir, needle) {
  const bytes = Buffer.from(needle);
  const walk = (d) => readdirSync(d).flatMap((name) => (statSync(join(d, name)).isDirectory() ? walk(join(d, name)) : [join(d, name)]));
  return walk(dir).filter((file) => readFileSync(file).includes(bytes));
}

function eventsLeft(dataDir, contentId) {
  const events = new Database(join(dataDir, 'knowledge', 'events.db'), { readonly: true });
  try {
    return events.prepare('SELECT count(*) AS n FROM events WHERE stream_id = ?').get(`knowledge-content-${contentId}`).n;
  } finally {
    events.close();
  }
}

const token = await new SignJWT({ workspace_id: 'probe' }).setProtectedHeader({ alg: 'HS256' }).setSubject('probe-user').setExpirationTime('1h').sign(new TextEncoder().encode(SECRET));
const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
const totals = { acknowledged: 0, erased: 0, intact: 0, onDisk: 0, lost: 0 };

async function api(url, method, path, body) {
  const res = await fetch(`${url}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await res.text();
  return { status: res.status, body: text === '' ? null : JSON.parse(text) };
}

for (let round = 1; round <= ROUNDS; round++) {
  const dataDir = mkdtempSync(join(tmpdir(), 'lore-probe-knowledge-delete-'));
  let lore = await start(dataDir);
  const collections = [];
  const contents = []; // { id, word, collection }
  for (const name of ['kept', 'deleted']) {
    const created = await api(lore.url, 'POST', '/api/v1/collections', { name: `${name} ${round}` });
    if (created.status !== 201) throw new Error(`collection: ${created.status} ${JSON.stringify(created.body)}`);
    collections.push(created.body.id);
    for (let i = 0; i < CONTENTS; i++) {
      const word = `Qvzk${round}x${name}x${i}wort`;
      const res = await api(lore.url, 'POST', '/api/v1/contents', { collection_id: created.body.id, name: `${word}.txt`, text: `The ${word} lanterns glow over the harbour at dusk, round ${round}.` });
      if (res.status !== 201) throw new Error(`content: ${res.status} ${JSON.stringify(res.body)}`);
      contents.push({ id: res.body.id, word, collection: created.body.id });
    }
  }
  for (const content of contents) {
    for (let i = 0; ; i++) {
      const status = (await api(lore.url, 'GET', `/api/v1/contents/${content.id}`)).body?.status;
      if (status === 'completed') break;
      if (status === 'failed' || i > 1200) throw new Error(`content ${content.id} did not complete (${status}): is MODELS_DIR (${MODELS_DIR}) there?`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  const [keptCollection, deletedCollection] = collections;
  const acknowledged = new Set();
  const burst = [
    ...contents.filter((c) => c.collection === keptCollection).map((c) => api(lore.url, 'DELETE', `/api/v1/contents/${c.id}`).then((r) => r.status === 200 && acknowledged.add(c.id), () => false)),
    api(lore.url, 'DELETE', `/api/v1/collections/${deletedCollection}`).then((r) => r.status === 200 && contents.filter((c) => c.collection === deletedCollection).forEach((c) => acknowledged.add(c.id)), () => false),
  ];
  await new Promise((r) => setTimeout(r, 5 + Math.random() * 80));
  lore.child.kill('SIGKILL');
  await Promise.allSettled(burst);
  await exited(lore.child);
  totals.acknowledged += acknowledged.size;

  lore = await start(dataDir);
  const statuses = await Promise.all(contents.map(async (c) => (await api(lore.url, 'GET', `/api/v1/contents/${c.id}`)).status));
  // The erasure of deletions recorded before the kill finishes in the background after the
  // restart; followed as a client would, by repeating the DELETE until it answers 404 (nothing
  // of it left: its stream, then its chunks' purge, which comes after the stream's deletion).
  const gone = contents.filter((_, i) => statuses[i] === 404);
  for (const c of gone) {
    for (let i = 0; ; i++) {
      const { status } = await api(lore.url, 'DELETE', `/api/v1/contents/${c.id}`);
      if (status === 404) break;
      if (i > 60) throw new Error(`the erasure of ${c.id} did not end after the restart (DELETE answers ${status})`);
      if (status !== 200 && status !== 202) await new Promise((r) => setTimeout(r, 500));
    }
  }
  lore.child.kill('SIGTERM');
  await exited(lore.child);
  let onDisk = 0;
  let lost = 0;
  contents.forEach((c, i) => {
    if (acknowledged.has(c.id) && statuses[i] !== 404) lost++;
    if (statuses[i] === 404 && (eventsLeft(dataDir, c.id) > 0 || filesContaining(dataDir, c.word).length > 0)) onDisk++;
  });
  totals.erased += gone.length;
  totals.intact += contents.length - gone.length;
  totals.onDisk += onDisk;
  totals.lost += lost;
  process.stdout.write(`round ${round}: ${acknowledged.size} deletions answered before kill -9; after restart ${gone.length} erased, ${contents.length - gone.length} intact, ${onDisk} gone but on disk, ${lost} acknowledged but readable\n`);
  rmSync(dataDir, { recursive: true, force: true });
}

process.stdout.write(
  `\n${ROUNDS} rounds x ${2 * CONTENTS} contents: ${totals.acknowledged} deletions acknowledged before the kill, ` +
    `${totals.erased} erased after restart, ${totals.intact} intact (deletion never recorded), ` +
    `${totals.lost} acknowledged but readable, ${totals.onDisk} gone but still on disk\n`,
);
if (totals.onDisk > 0 || totals.lost > 0) process.exit(1);
