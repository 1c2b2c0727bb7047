// npm run probe:kill-during-ingest — content processing against kill -9.
// Each round starts the standalone app (dist/standalone.js) on a fresh DATA_DIR with a short
// processing lease, uploads large texts (thousands of chunks each), and then, several times at
// a random moment while they are being processed, kills the process with SIGKILL and starts it
// again on the same files. A killed worker leaves its lease behind; the restarted service must
// take the content over once that lease lapses, drop the dead attempt's chunks and finish.
// After the last restart every content must end `completed`, with the chunk count of the same
// text processed without a kill (a reference run first), and its chunks (GET /chunks, walking
// the cursor) must be exactly indexes 0..n-1, each once, with the ids the chunker gives them.
//
// Embeddings come from a small OpenAI-compatible server started here (deterministic hashed
// vectors, a few ms per request), so the run measures the pipeline, not the model; set
// PROBE_PROVIDER=local (and MODELS_DIR) to use the local ONNX model instead (20-50 chunks/s on
// two cores: lower PROBE_WORDS). Knobs: PROBE_ROUNDS (default 4), PROBE_KILLS per round
// (default 3), PROBE_CONTENTS per round (default 2), PROBE_WORDS per content (default 20000,
// ~3600 chunks of 64 tokens), PROBE_LEASE_MS (default 1500), PROBE_ENTRY (default
// dist/standalone.js). Each kill counts as an interrupted attempt, so the attempts cap is set
// above the kills (KNOWLEDGE_PROCESSING_ATTEMPTS = kills + 2); with fewer, a content is
// `failed` ("interrupted N times") by design.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { URLSearchParams } from 'node:url';
import { SignJWT } from 'jose';
import { freePort } from '../bench/load.mjs';
import { exited, untilReady } from './lore-process.mjs';
import { BENCH_LORE_ENV } from '../bench/bench-env.mjs';
import { startEmbeddingStandIn, standInEnv } from './embedding-stand-in.mjs';

const ROUNDS = Number(process.env.PROBE_ROUNDS ?? 4);
const KILLS = Number(process.env.PROBE_KILLS ?? 3);
const CONTENTS = Number(process.env.PROBE_CONTENTS ?? 2);
const WORDS = Number(process.env.PROBE_WORDS ?? 20_000);
const LEASE_MS = Number(process.env.PROBE_LEASE_MS ?? 1500);
const PROVIDER = process.env.PROBE_PROVIDER ?? 'server';
const ENTRY = process.env.PROBE_ENTRY ?? 'dist/standalone.js';
const SECRET = 'probe-secret';
const SETTLE_MS = 10 * 60_000;

function providerEnv(embedder) {
  return PROVIDER === 'local' ? { EMBEDDING_DEFAULT_PROVIDER: 'local' } : standInEnv(embedder);
}

async function start(dataDir, embedder) {
  const port = await freePort();
  const child = spawn(process.execPath, [ENTRY], {
    env: {
      ...process.env,
      ...BENCH_LORE_ENV,
      ...providerEnv(embedder),
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      AUTH_JWT_SECRET: SECRET,
      LOG_LEVEL: process.env.PROBE_LOG_LEVEL ?? 'silent',
      LORE_MASTER_KEY: '',
      KNOWLEDGE_LEASE_MS: String(LEASE_MS),
      KNOWLEDGE_PROCESSING_ATTEMPTS: String(KILLS + 2),
      KNOWLEDGE_RETRY_BASE_MS: '200',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  child.once('exit', (code, signal) => {
    if (signal !== 'SIGKILL' && signal !== 'SIGTERM' && code !== 0) process.stderr.write(`Lore (pid ${child.pid}) exited by itself: code ${code}, signal ${signal}\n`);
  });
  await untilReady(child, url, 1200);
  return { child, url };
}

async function api(lore, method, path, body) {
  const res = await fetch(`${lore.url}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

/** A long text of numbered words with sentence breaks: deterministic, so every copy chunks alike. */
function longText(seed) {
  const words = [];
  for (let i = 0; i < WORDS; i++) words.push(`${seed}w${i % 997}x${i % 13}${i % 11 === 10 ? '.' : ''}`);
  return words.join(' ');
}

async function uploadAll(lore, collectionId, texts) {
  const ids = [];
  for (const [i, text] of texts.entries()) ids.push((await api(lore, 'POST', '/api/v1/contents', { collection_id: collectionId, name: `probe-${i}.txt`, text })).id);
  return ids;
}

async function waitSettled(lore, ids) {
  const deadline = Date.now() + SETTLE_MS;
  for (;;) {
    const contents = await Promise.all(ids.map((id) => api(lore, 'GET', `/api/v1/contents/${id}`)));
    if (contents.every((c) => c.status === 'completed' || c.status === 'failed')) return contents;
    if (Date.now() > deadline) throw new Error(`not settled after ${SETTLE_MS} ms: ${contents.map((c) => `${c.id} ${c.status}`).join(', ')}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** GET /chunks for one content, every page: indexes, ids, and what is wrong with them. */
async function walkChunks(lore, content) {
  const seen = new Map();
  const ids = new Set();
  let duplicates = 0;
  let cursor = null;
  let pages = 0;
  do {
    const query = new URLSearchParams({ content_id: content.id, limit: '500', ...(cursor === null ? {} : { cursor }) });
    const page = await api(lore, 'GET', `/chunks?${query}`);
    for (const chunk of page.chunks) {
      if (seen.has(chunk.chunk_index) || ids.has(chunk.id)) duplicates++;
      seen.set(chunk.chunk_index, chunk.id);
      ids.add(chunk.id);
    }
    cursor = page.next_cursor;
    pages++;
  } while (cursor !== null && pages < 10_000);
  let gaps = 0;
  let wrongIds = 0;
  for (let i = 0; i < seen.size; i++) {
    if (!seen.has(i)) gaps++;
    else if (seen.get(i) !== `${content.id}_c${i}`) wrongIds++;
  }
  return { count: seen.size, duplicates, gaps, wrongIds };
}

const token = await new SignJWT({ workspace_id: 'probe' }).setProtectedHeader({ alg: 'HS256' }).setSubject('probe-user').setExpirationTime('2h').sign(new TextEncoder().encode(SECRET));
const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
const embedder = PROVIDER === 'local' ? null : await startEmbeddingStandIn();
const collectionBody = { name: 'probe', settings: { chunk_size: 64, chunk_overlap: 8 } };
const texts = Array.from({ length: CONTENTS }, (_, i) => longText(`c${i}`));

// The reference: the same texts processed without a kill, timed, for the expected chunk counts.
const expected = [];
let cleanMs;
{
  const dataDir = mkdtempSync(join(tmpdir(), 'lore-probe-ingest-ref-'));
  const lore = await start(dataDir, embedder);
  const collection = await api(lore, 'POST', '/api/v1/collections', collectionBody);
  const began = Date.now();
  const ids = await uploadAll(lore, collection.id, texts);
  const done = await waitSettled(lore, ids);
  cleanMs = Date.now() - began;
  for (const c of done) {
    if (c.status !== 'completed') throw new Error(`reference content ${c.id} ${c.status}: ${c.error}`);
    expected.push(c.chunk_count);
  }
  lore.child.kill('SIGTERM');
  await exited(lore.child);
  rmSync(dataDir, { recursive: true, force: true });
}
process.stdout.write(
  `reference: ${CONTENTS} contents of ${WORDS} words, ${expected.join(' + ')} chunks, processed in ${(cleanMs / 1000).toFixed(1)} s without a kill (${PROVIDER} embeddings, lease ${LEASE_MS} ms)\n`,
);

const totals = { contents: 0, completed: 0, failed: 0, wrongCount: 0, duplicates: 0, gaps: 0, wrongIds: 0, kills: 0, killsMidProcessing: 0, attempts: 0, recoverMs: 0 };
for (let round = 1; round <= ROUNDS; round++) {
  const dataDir = mkdtempSync(join(tmpdir(), 'lore-probe-ingest-'));
  let lore = await start(dataDir, embedder);
  const collection = await api(lore, 'POST', '/api/v1/collections', collectionBody);
  const ids = await uploadAll(lore, collection.id, texts);
  const killedAt = [];
  for (let kill = 0; kill < KILLS; kill++) {
    // A random moment within what a clean run takes, so most kills land mid-processing.
    const wait = Math.floor(100 + Math.random() * Math.max(200, cleanMs * 0.8));
    await new Promise((r) => setTimeout(r, wait));
    const before = await Promise.all(ids.map((id) => api(lore, 'GET', `/api/v1/contents/${id}`).then((c) => c.status, () => '?')));
    lore.child.kill('SIGKILL');
    await exited(lore.child);
    totals.kills++;
    if (before.some((s) => s === 'processing' || s === 'new')) totals.killsMidProcessing++;
    killedAt.push(`${wait} ms [${before.join(',')}]`);
    lore = await start(dataDir, embedder);
  }
  const restarted = Date.now();
  const done = await waitSettled(lore, ids);
  const recoverMs = Date.now() - restarted;
  totals.recoverMs += recoverMs;
  const problems = [];
  for (const [i, content] of done.entries()) {
    totals.contents++;
    totals.attempts += content.attempts;
    if (content.status !== 'completed') {
      totals.failed++;
      problems.push(`${content.id} failed: ${content.error}`);
      continue;
    }
    totals.completed++;
    const walked = await walkChunks(lore, content);
    if (content.chunk_count !== expected[i] || walked.count !== expected[i]) {
      totals.wrongCount++;
      problems.push(`${content.id}: chunk_count ${content.chunk_count}, walked ${walked.count}, expected ${expected[i]}`);
    }
    totals.duplicates += walked.duplicates;
    totals.gaps += walked.gaps;
    totals.wrongIds += walked.wrongIds;
  }
  const stats = (await api(lore, 'GET', `/api/v1/collections/${collection.id}`)).stats;
  const expectedTotal = expected.reduce((a, b) => a + b, 0);
  if (stats.chunk_count !== expectedTotal) problems.push(`collection stats chunk_count ${stats.chunk_count}, expected ${expectedTotal}`);
  lore.child.kill('SIGTERM');
  await exited(lore.child);
  rmSync(dataDir, { recursive: true, force: true });
  process.stdout.write(
    `round ${round}: kill -9 at ${killedAt.join('; ')}; after the last restart all settled in ${(recoverMs / 1000).toFixed(1)} s: ` +
      `${done.map((c) => `${c.status} ${c.chunk_count} chunks, ${c.attempts} attempts`).join(' | ')}` +
      `${problems.length > 0 ? `\n  PROBLEMS: ${problems.join('; ')}` : ''}\n`,
  );
  if (stats.chunk_count !== expectedTotal) totals.wrongCount++;
}
await embedder?.close();

process.stdout.write(
  `\n${ROUNDS} rounds x ${CONTENTS} contents (${expected.join('/')} chunks), ${totals.kills} kill -9 (${totals.killsMidProcessing} while a content was new or processing): ` +
    `${totals.completed} completed, ${totals.failed} failed, ${totals.wrongCount} with a wrong chunk count, ${totals.duplicates} duplicate chunks, ` +
    `${totals.gaps} missing indexes, ${totals.wrongIds} unexpected chunk ids; ${(totals.attempts / Math.max(1, totals.contents)).toFixed(1)} attempts per content on average; ` +
    `settled ${(totals.recoverMs / ROUNDS / 1000).toFixed(1)} s after the last restart on average\n`,
);
if (totals.failed > 0 || totals.wrongCount > 0 || totals.duplicates > 0 || totals.gaps > 0 || totals.wrongIds > 0) process.exit(1);
