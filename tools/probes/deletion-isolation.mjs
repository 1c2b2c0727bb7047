// npm run probe:deletion-isolation — does one workspace's large deletion (or reprocess) slow another's writes?
// Starts the standalone bundle (dist/standalone.js) with the embedding stand-in. Workspace A
// uploads a text of PROBE_MB megabytes (default 19: ~26,000 chunks) and waits until it is
// processed (PROBE_ACTION=delete, the default, or reprocess), or writes a conversation of
// PROBE_MESSAGES messages (default 20,000; PROBE_ACTION=conversation, or message: the first
// message, whose replies are all the others). Then workspace B, from a worker thread of its own,
// writes every PROBE_GAP_MS (default 40): a small content, or a message to a conversation of its
// own. Meanwhile A deletes the content, the conversation or the message (and repeats
// the DELETE while it answers 202, as a client following the erasure would), or asks for the
// content to be processed again and waits until it is completed again (its earlier chunks are
// dropped first). Prints B's writes before, during (until A's DELETE was answered; until A's
// content was completed again) and after (count, p50, p95, max, statuses), A's answers, the answers
// to a DELETE of B's own (a small content, or conversation) sent a second into A's and repeated
// while it answers 202 (what another workspace's erasure makes it wait), p95
// during ÷ before and the load average; exits 1 when any of B's writes is not a 201, or one made
// during took longer than PROBE_MAX_MS (default 1000), or a reprocessed content comes back with
// another chunk count or fewer chunks listed. Before the purges (09646b3) B's creates waited up
// to 5 s for A's chunks to be deleted, and one answered 503; before attempt purges (3edee98) a
// reprocess held them up to 3.3 s, and a conversation's deletion held B's appends 4.4 s; before
// subtree purges (3c563dd) a message's deletion with its 19,999 replies held them 3.5 s.
// Knobs: PROBE_ACTION (delete, reprocess, conversation, message), PROBE_MB, PROBE_MESSAGES, PROBE_GAP_MS,
// PROBE_IDLE_MS (B alone first, default 3000), PROBE_MAX_MS, PROBE_ENTRY.
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { performance } from 'node:perf_hooks';
import { join } from 'node:path';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { SignJWT } from 'jose';
import { percentile } from '../bench/lore-under-bench.mjs';
import { stopChild } from '../bench/load.mjs';
import { startStandalone } from './lore-process.mjs';
import { startEmbeddingStandIn, standInEnv } from './embedding-stand-in.mjs';

const MB = Number(process.env.PROBE_MB ?? 19);
const GAP_MS = Number(process.env.PROBE_GAP_MS ?? 40);
const IDLE_MS = Number(process.env.PROBE_IDLE_MS ?? 3000);
const MAX_MS = Number(process.env.PROBE_MAX_MS ?? 1000);
const ENTRY = process.env.PROBE_ENTRY ?? 'dist/standalone.js';
const MESSAGES = Number(process.env.PROBE_MESSAGES ?? 20_000);
const ACTION = process.env.PROBE_ACTION ?? 'delete';
if (!['delete', 'reprocess', 'conversation', 'message'].includes(ACTION)) throw new Error(`PROBE_ACTION is delete, reprocess, conversation or message, not ${ACTION}`);
const CONVERSATION = ACTION === 'conversation' || ACTION === 'message';
const SECRET = 'probe-deletion-secret';

async function call(url, token, method, path, body) {
  const started = performance.now();
  const res = await fetch(url + path, { method, headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, ms: performance.now() - started, body: text === '' ? null : JSON.parse(text) };
}

if (!isMainThread) {
  // B: small writes until told to stop; each sample is [epoch ms at start, ms taken, status].
  const { url, token, collectionId, conversationId } = workerData;
  const samples = [];
  let stop = false;
  parentPort.on('message', () => (stop = true));
  for (let n = 0; !stop; n++) {
    const at = Date.now();
    const r =
      conversationId === undefined
        ? await call(url, token, 'POST', '/api/v1/contents', { collection_id: collectionId, name: `small-${n}.txt`, text: `A small note, number ${n}.` })
        : await call(url, token, 'POST', `/api/v1/conversations/${conversationId}/messages`, { content: `A small note, number ${n}.` });
    samples.push([at, r.ms, r.status]);
    await new Promise((resolve) => setTimeout(resolve, GAP_MS));
  }
  parentPort.postMessage(samples);
} else {
  const token = (workspace) => new SignJWT({ workspace_id: workspace }).setProtectedHeader({ alg: 'HS256' }).setSubject(`user-${workspace}`).setIssuedAt().setExpirationTime('2h').sign(new TextEncoder().encode(SECRET));
  const until = async (probe, done) => {
    for (;;) {
      const value = await probe();
      if (done(value)) return value;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  };
  const standIn = await startEmbeddingStandIn();
  const dataDir = mkdtempSync(join(tmpdir(), 'lore-probe-deletion-'));
  const lore = await startStandalone({ entry: ENTRY, dataDir, secret: SECRET, env: standInEnv(standIn) });
  try {
    const [a, b] = [await token('ws-deleting'), await token('ws-writing')];
    let target;
    let large;
    let bWrites;
    if (CONVERSATION) {
      const conversation = `/api/v1/conversations/${(await call(lore.url, a, 'POST', '/api/v1/conversations', { title: 'long' })).body.id}`;
      const started = performance.now();
      const append = async (n) => {
        const r = await call(lore.url, a, 'POST', `${conversation}/messages`, { content: `Message ${n} of a long conversation about harbour lanterns and the people who keep them lit.` });
        if (r.status !== 201) throw new Error(`A's message ${n} answered ${r.status}`);
        return r.body;
      };
      // The first alone: every other one is appended below it (to the active path's end).
      const first = await append(0);
      target = ACTION === 'message' ? `/api/v1/messages/${first.id}` : conversation;
      let next = 1;
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          while (next < MESSAGES) {
            await append(next++);
          }
        }),
      );
      process.stdout.write(`A's conversation: ${MESSAGES} messages in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
      bWrites = { conversationId: (await call(lore.url, b, 'POST', '/api/v1/conversations', { title: 'small' })).body.id };
    } else {
      const collectionA = (await call(lore.url, a, 'POST', '/api/v1/collections', { name: 'large' })).body.id;
      bWrites = { collectionId: (await call(lore.url, b, 'POST', '/api/v1/collections', { name: 'small' })).body.id };
      const words = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta', 'iota', 'kappa', 'lambda', 'mu'];
      const paragraphs = [];
      for (let p = 0, size = 0; size < MB * 1e6; p++) {
        const paragraph = Array.from({ length: 120 }, (_, w) => words[(p * 7 + w * 13) % words.length] + (w % 17 === 0 ? p : '')).join(' ') + '.\n\n';
        paragraphs.push(paragraph);
        size += paragraph.length;
      }
      const form = new FormData();
      form.set('collection_id', collectionA);
      form.set('file', new Blob([paragraphs.join('')], { type: 'text/plain' }), 'large.txt');
      const uploadStarted = performance.now();
      const uploaded = await (await fetch(`${lore.url}/api/v1/contents`, { method: 'POST', headers: { authorization: `Bearer ${a}` }, body: form })).json();
      target = `/api/v1/contents/${uploaded.id}`;
      large = await until(() => call(lore.url, a, 'GET', target).then((r) => r.body), (c) => c.status === 'completed' || c.status === 'failed');
      process.stdout.write(`A's ${MB} MB text: ${large.status}, ${large.chunk_count} chunks, ${((performance.now() - uploadStarted) / 1000).toFixed(1)} s from upload\n`);
    }

    // A DELETE repeated while it answers 202, as a client following the erasure would: its answers, timed from `since`.
    const following = async (token, path, since) => {
      const answers = [];
      for (let status = 202; status === 202; ) {
        const r = await call(lore.url, token, 'DELETE', path);
        status = r.status;
        answers.push(`${status} at +${((Date.now() - since) / 1000).toFixed(1)} s`);
      }
      return answers;
    };
    let ownTarget = null;
    let ownAnswers = null;
    if (ACTION === 'delete') {
      const own = (await call(lore.url, b, 'POST', '/api/v1/contents', { collection_id: bWrites.collectionId, name: 'own.txt', text: 'A note that B deletes while A deletes.' })).body;
      ownTarget = `/api/v1/contents/${own.id}`;
      await until(() => call(lore.url, b, 'GET', ownTarget).then((r) => r.body), (c) => c.status === 'completed' || c.status === 'failed');
    } else if (ACTION === 'conversation') {
      const own = (await call(lore.url, b, 'POST', '/api/v1/conversations', { title: 'own' })).body;
      ownTarget = `/api/v1/conversations/${own.id}`;
      await call(lore.url, b, 'POST', `${ownTarget}/messages`, { content: 'A message that B deletes while A deletes.' });
    }
    const writer = new Worker(new URL(import.meta.url), { workerData: { url: lore.url, token: b, ...bWrites } });
    const samples = new Promise((resolve, reject) => {
      writer.once('message', resolve);
      writer.once('error', reject);
    });
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
    const deleteAt = Date.now();
    const answers = [];
    let answeredAt;
    if (ACTION !== 'reprocess') {
      // B deletes something small of its own a second into A's deletion: how long another workspace's erasure makes it wait.
      const ownDeletion = ownTarget === null ? null : new Promise((resolve) => setTimeout(resolve, 1000)).then(() => following(b, ownTarget, Date.now()));
      const first = await call(lore.url, a, 'DELETE', target);
      answeredAt = Date.now();
      answers.push(`${first.status} after ${first.ms.toFixed(0)} ms`);
      if (first.status === 202) answers.push(...(await following(a, target, deleteAt)));
      if (ownDeletion !== null) ownAnswers = await ownDeletion;
    } else {
      const first = await call(lore.url, a, 'POST', `${target}/reprocess`);
      answers.push(`${first.status} after ${first.ms.toFixed(0)} ms`);
      const again = await until(() => call(lore.url, a, 'GET', target).then((r) => r.body), (c) => c.status === 'completed' || c.status === 'failed');
      answeredAt = Date.now();
      let listed = 0;
      for (let cursor = null; ; ) {
        const page = await call(lore.url, a, 'GET', `/api/v1/chunks?content_id=${large.id}&limit=500${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`);
        listed += page.body.chunks.length;
        cursor = page.body.next_cursor;
        if (cursor === null || cursor === undefined) break;
      }
      answers.push(`${again.status} again at +${((answeredAt - deleteAt) / 1000).toFixed(1)} s with ${again.chunk_count} chunks, ${listed} listed`);
      if (again.status !== 'completed' || again.chunk_count !== large.chunk_count || listed !== large.chunk_count) {
        process.stdout.write(`FAIL: the reprocessed content came back ${again.status} with ${again.chunk_count} chunks, ${listed} listed (${large.chunk_count} before)\n`);
        process.exitCode = 1;
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 2000));
    writer.postMessage('stop');
    const all = await samples;
    await writer.terminate();

    const phase = (label, rows) => {
      const ms = rows.map(([, taken]) => taken);
      const statuses = [...new Set(rows.map(([, , status]) => status))].join(',');
      process.stdout.write(`B's ${writes} ${label}: ${rows.length}, p50 ${percentile(ms, 50).toFixed(1)} ms, p95 ${percentile(ms, 95).toFixed(1)} ms, max ${Math.max(...ms).toFixed(1)} ms; statuses ${statuses}\n`);
      return percentile(ms, 95);
    };
    const what = ACTION === 'reprocess' ? 'reprocess' : 'DELETE';
    const writes = CONVERSATION ? 'appends' : 'creates';
    process.stdout.write(`A's ${what}: ${answers.join(', ')}\n`);
    if (ownAnswers !== null) process.stdout.write(`B's own DELETE, 1 s into A's: ${ownAnswers.join(', ')}\n`);
    const before = phase(`before A's ${what}`, all.filter(([at]) => at < deleteAt));
    const meanwhile = all.filter(([at]) => at >= deleteAt && at < answeredAt);
    const during = phase(`${ACTION === 'reprocess' ? 'until it was completed again' : 'while it was answered'} (${((answeredAt - deleteAt) / 1000).toFixed(1)} s)`, meanwhile);
    phase('after', all.filter(([at]) => at >= answeredAt));
    process.stdout.write(`p95 during ÷ before: ×${(during / before).toFixed(2)}; load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}\n`);
    if (all.some(([, , status]) => status !== 201)) {
      process.stdout.write(`FAIL: a write of workspace B was not answered 201\n`);
      process.exitCode = 1;
    }
    if (meanwhile.some(([, taken]) => taken > MAX_MS)) {
      process.stdout.write(`FAIL: a write of workspace B took over ${MAX_MS} ms during A's ${what}\n`);
      process.exitCode = 1;
    }
  } finally {
    await stopChild(lore.child);
    await standIn.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
