// npm run bench:conversations — the conversations context under a chat service's load:
//  1. appends (POST /api/v1/conversations/{id}/messages spread over many conversations and
//     users) against the standalone app and the distributed topology (over the NATS at
//     NATS_URL), beside a bare Fastify + better-sqlite3 baseline (one insert per request) run
//     in the same process tree with the same concurrency and request count;
//  2. with 100k messages in one workspace: the conversation list, the message list (by
//     conversation and a user's), a conversation's active path;
//  3. content search of messages by selective words (each message carries one of 5,000 topic
//     words);
//  4. the context endpoint on a 200-message conversation whose owner has 1,000 memories and
//     whose collection holds 10k chunks (embedded by the local model: several minutes).
// Prints throughput, p50/p95, ratios and a summary against the targets.
// Knobs: BENCH_COUNT (appends, default 5000), BENCH_CONCURRENCY (default 32),
// BENCH_MESSAGES (default 100000), BENCH_LOAD_CONCURRENCY (default 64), BENCH_READS (requests
// per read figure, default 300), BENCH_READ_CONCURRENCY (default 1: latency, not queueing),
// BENCH_CONTEXT_CHUNKS (default 10000; e.g. 1000 for a quick run), BENCH_CONTEXT_MEMORIES
// (default 1000), BENCH_CONTEXT_REQUESTS (default 100), BENCH_PARTS (default
// appends,reads,context), MODELS_DIR, NATS_URL.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { freePort, runLoad, stopChild, removeNatsLeftovers } from './load.mjs';
import { MODELS_DIR, inParallel } from './lore-under-bench.mjs';
import { BENCH_LORE_ENV } from './bench-env.mjs';
import { startFlags } from './start-flags.mjs';

const env = (name, fallback) => Number(process.env[name] ?? fallback);
const COUNT = env('BENCH_COUNT', 5000);
const CONCURRENCY = env('BENCH_CONCURRENCY', 32);
const APPEND_CONVERSATIONS = 200;
const APPEND_USERS = 5;
const MESSAGES = env('BENCH_MESSAGES', 100_000);
const LOAD_CONVERSATIONS = Math.min(1000, Math.max(1, Math.floor(MESSAGES / 100)));
const LOAD_USERS = 10;
const LOAD_CONCURRENCY = env('BENCH_LOAD_CONCURRENCY', 64);
const READS = env('BENCH_READS', 300);
const READ_CONCURRENCY = env('BENCH_READ_CONCURRENCY', 1);
const TOPICS = 5000;
const CONTEXT_CHUNKS = env('BENCH_CONTEXT_CHUNKS', 10_000);
const CONTEXT_MEMORIES = env('BENCH_CONTEXT_MEMORIES', 1000);
const CONTEXT_MESSAGES = 200;
const CONTEXT_REQUESTS = env('BENCH_CONTEXT_REQUESTS', 100);
const PARAGRAPHS_PER_CONTENT = 20;
const PARTS = new Set((process.env.BENCH_PARTS ?? 'appends,reads,context').split(','));
const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const SECRET = 'bench-secret';
const ROOT = mkdtempSync(join(tmpdir(), 'lore-bench-conversations-'));
const children = [];

// ---- texts: common words, plus one of TOPICS rare made-up words per message/paragraph/memory ----

const COMMON = (
  'the a to and of in is it you that for on with as this was at be have are not but what all were when we there can an your which their ' +
  'said if do will each about how up out them then she many some so these would other into has more her two like him see time could no make ' +
  'than first been its who now people my made over did down only way find use may water long little very after words called just where most ' +
  'know get through back much go good new write our me man too any day same right look think also around another came come work three word ' +
  'must because does part even place well such here take why things help put years different away again off went old number great tell men ' +
  'say small every found still between name should home big give air line set own under read last never us left end along while might next ' +
  'sound below saw something thought both few those always looked show large often together asked house world going want school important ' +
  'until form food keep children feet land side without boy once animals life enough took sometimes four head above kind began almost live ' +
  'page got earth need far hand high year mother light country father let night following picture being study second eyes soon times story'
).split(' ');
const CONSONANTS = 'bdfgklmnprstvz';
const VOWELS = 'aeiou';
const syllable = (n) => CONSONANTS[n % CONSONANTS.length] + VOWELS[Math.floor(n / CONSONANTS.length) % VOWELS.length];
const SYLLABLES = CONSONANTS.length * VOWELS.length;
/** Made-up words, distinct for t < SYLLABLES³ and after stemming (they end in vowel + n). */
const topicWord = (t) => `${syllable(t % SYLLABLES)}${syllable(Math.floor(t / SYLLABLES) % SYLLABLES)}${syllable(Math.floor(t / SYLLABLES ** 2))}n`;

/** `n` common words drawn from `seed`, deterministic. */
function commonWords(seed, n) {
  let x = (seed * 2654435761 + 1013904223) >>> 0;
  const words = [];
  for (let i = 0; i < n; i++) {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    words.push(COMMON[x % COMMON.length]);
  }
  return words;
}
const sentence = (words) => `${words[0][0].toUpperCase()}${words.join(' ').slice(1)}.`;
/** The k-th message's topic: a hash of k, so a topic's ~MESSAGES/TOPICS messages spread over conversations and users. */
function messageTopic(k) {
  let x = (k + 0x9e3779b9) >>> 0;
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b) >>> 0;
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35) >>> 0;
  return ((x ^ (x >>> 16)) >>> 0) % TOPICS;
}
/** ~15 words, one of them the message's topic word. */
function messageText(k) {
  const words = commonWords(k, 14);
  words.splice(7, 0, topicWord(messageTopic(k)));
  return sentence(words);
}
/** Two sentences, ~40 tokens: two never fit in a 64-token chunk, so a chunk is a paragraph. */
function paragraph(p) {
  const first = commonWords(1_000_003 + p, 15);
  first.splice(8, 0, topicWord((p * 104_729 + 17) % TOPICS));
  return `${sentence(first)} ${sentence(commonWords(2_000_003 + p, 15))}`;
}
const memoryText = (m) => `The user ${commonWords(3_000_003 + m, 5).join(' ')} ${topicWord((m * 613 + 29) % TOPICS)} ${commonWords(4_000_003 + m, 6).join(' ')}.`;

// ---- servers ----

async function start(name, args, extraEnv, readyPath) {
  const port = await freePort();
  const dataDir = join(ROOT, name);
  mkdirSync(dataDir, { recursive: true });
  const child = spawn(process.execPath, args, {
    env: { ...process.env, ...BENCH_LORE_ENV, MODELS_DIR, ...extraEnv, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, BASELINE_DB: join(dataDir, 'baseline.db'), AUTH_JWT_SECRET: SECRET, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const server = { child, url: `http://127.0.0.1:${port}` };
  children.push(server);
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}`);
    try {
      const res = await fetch(server.url + readyPath, { method: readyPath === '/items' ? 'POST' : 'GET', headers: { 'content-type': 'application/json' }, body: readyPath === '/items' ? '{}' : undefined });
      if (res.status < 300) return server;
    } catch {
      // not listening yet: poll again
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${name} did not become ready`);
}

const stop = ({ child }) => stopChild(child);

const tokens = new Map();
/** A JWT caller: `user` of `workspace`. */
async function auth(workspace, user) {
  const key = `${workspace}/${user}`;
  if (!tokens.has(key)) {
    const token = await new SignJWT({ workspace_id: workspace }).setProtectedHeader({ alg: 'HS256' }).setSubject(user).setExpirationTime('12h').sign(new TextEncoder().encode(SECRET));
    tokens.set(key, { authorization: `Bearer ${token}` });
  }
  return tokens.get(key);
}

/** One JSON call, throwing on an error status. */
async function call(url, headers, method, path, body) {
  const res = await fetch(url + path, { method, headers: { ...headers, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

/** Conversations of `users` users of `workspace`, round-robin: [{ id, headers }]. */
async function createConversations(url, workspace, users, count, extra = () => ({})) {
  const conversations = new Array(count);
  await inParallel(
    Array.from({ length: count }, (_, i) => i),
    16,
    async (i) => {
      const headers = await auth(workspace, `user-${i % users}`);
      const created = await call(url, headers, 'POST', '/api/v1/conversations', { title: `${commonWords(9_000_000 + i, 3).join(' ')} chat ${i}`, tags: ['bench'], ...extra(i) });
      conversations[i] = { id: created.id, headers };
    },
  );
  return conversations;
}

const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
const check = (label, r) => {
  if (r.failures) throw new Error(`${label}: ${r.failures} of ${r.count} requests failed, e.g. ${r.firstFailure}`);
  return r;
};

// ---- 1. appends ----

const appendBody = (i) => ({ content: messageText(i), role: i % 2 === 0 ? 'user' : 'assistant' });

async function benchAppends(name, url) {
  const conversations = await createConversations(url, 'bench', APPEND_USERS, APPEND_CONVERSATIONS);
  const append = await runLoad({
    url, concurrency: CONCURRENCY, count: COUNT,
    request: (i) => {
      const c = conversations[i % conversations.length];
      return { method: 'POST', path: `/api/v1/conversations/${c.id}/messages`, body: appendBody(i), headers: c.headers };
    },
  });
  return { name, append };
}

// ---- 2, 3. reads at 100k messages ----

async function loadMessages(url) {
  const workspace = 'bench-100k';
  const conversations = await createConversations(url, workspace, LOAD_USERS, LOAD_CONVERSATIONS);
  const started = Date.now();
  // Message k goes to conversation k mod N, so concurrent appends hit different conversations.
  const load = check('load', await runLoad({
    url, concurrency: LOAD_CONCURRENCY, count: MESSAGES,
    request: (k) => {
      const c = conversations[k % conversations.length];
      return { method: 'POST', path: `/api/v1/conversations/${c.id}/messages`, body: { content: messageText(k), role: Math.floor(k / conversations.length) % 2 === 0 ? 'user' : 'assistant' }, headers: c.headers };
    },
  }));
  return { workspace, conversations, load, loadMs: Date.now() - started };
}

async function benchReads(url, { conversations }) {
  const read = (label, request) => runLoad({ url, concurrency: READ_CONCURRENCY, count: READS, request }).then((r) => check(label, r));
  const user = (i) => conversations[i % LOAD_USERS].headers; // conversation i belongs to user i mod LOAD_USERS
  const conv = (i) => conversations[(i * 37) % conversations.length];
  const sizes = await call(url, conv(0).headers, 'GET', `/api/v1/conversations/${conv(0).id}/messages?limit=1`);
  const listed = await call(url, user(0), 'GET', '/conversations');
  const perUser = await call(url, user(0), 'GET', '/api/v1/messages?limit=1');
  process.stdout.write(`  a conversation's active path: ${sizes.total_count} messages; a user has ${perUser.total_count} messages; first page of /conversations: ${listed.conversations.length}\n`);
  const lists = {
    conversations: await read('GET /conversations', (i) => ({ method: 'GET', path: '/conversations', headers: user(i) })),
    conversationsByTitle: await read('GET /conversations?sort_by=title', (i) => ({ method: 'GET', path: '/conversations?sort_by=title&sort_order=asc', headers: user(i) })),
    messagesOfConversation: await read('GET /api/v1/messages?conversation_id', (i) => ({ method: 'GET', path: `/api/v1/messages?conversation_id=${conv(i).id}`, headers: conv(i).headers })),
    messagesOfUser: await read('GET /api/v1/messages', (i) => ({ method: 'GET', path: '/api/v1/messages', headers: user(i) })),
    activePath: await read('GET /api/v1/conversations/{id}/messages', (i) => ({ method: 'GET', path: `/api/v1/conversations/${conv(i).id}/messages`, headers: conv(i).headers })),
  };
  // Search a topic word of one of the user's own messages: ~MESSAGES/TOPICS messages in the
  // workspace carry it, a tenth of them the user's.
  const searchTopic = (i) => {
    const k = (i * 7907) % MESSAGES;
    const c = conversations[k % conversations.length];
    return { headers: c.headers, word: topicWord(messageTopic(k)), other: commonWords(k, 14)[3] };
  };
  let hits = 0;
  for (let i = 0; i < 20; i++) {
    const { headers, word } = searchTopic(i);
    const found = await call(url, headers, 'GET', `/api/v1/messages?search=${word}`);
    if (found.data.length === 0) throw new Error(`search ${word} found nothing`);
    hits += found.total_count;
  }
  process.stdout.write(`  search of one topic word: ${(hits / 20).toFixed(1)} of the user's messages on average (the word is in ~${Math.round(MESSAGES / TOPICS)} of the workspace's)\n`);
  const search = {
    one: await read('search one word', (i) => ({ method: 'GET', path: `/api/v1/messages?search=${searchTopic(i).word}`, headers: searchTopic(i).headers })),
    two: await read('search two words', (i) => ({ method: 'GET', path: `/api/v1/messages?search=${encodeURIComponent(`${searchTopic(i).other} ${searchTopic(i).word}`)}`, headers: searchTopic(i).headers })),
    common: await read('search a common word', (i) => ({ method: 'GET', path: `/api/v1/messages?search=${COMMON[(i * 13) % COMMON.length]}`, headers: user(i) })),
  };
  return { lists, search };
}

// ---- 4. context ----

async function benchContext(url) {
  const workspace = 'bench-context';
  const headers = await auth(workspace, 'context-user');
  const started = Date.now();
  const memoryIds = new Array(CONTEXT_MEMORIES);
  await inParallel(Array.from({ length: CONTEXT_MEMORIES }, (_, m) => m), 16, async (m) => {
    memoryIds[m] = (await call(url, headers, 'POST', '/api/v1/memories', { memory: memoryText(m), topics: [`t${m % 10}`] })).memory_id;
  });
  const memoriesMs = Date.now() - started;
  process.stdout.write(`  ${CONTEXT_MEMORIES} memories created in ${seconds(memoriesMs)}\n`);
  const collection = await call(url, headers, 'POST', '/api/v1/collections', { name: 'bench context', settings: { chunk_size: 64, chunk_overlap: 0 } });
  const contents = Math.ceil(CONTEXT_CHUNKS / PARAGRAPHS_PER_CONTENT);
  const uploadStarted = Date.now();
  const contentIds = [];
  await inParallel(Array.from({ length: contents }, (_, c) => c), 8, async (c) => {
    const paragraphs = Array.from({ length: Math.min(PARAGRAPHS_PER_CONTENT, CONTEXT_CHUNKS - c * PARAGRAPHS_PER_CONTENT) }, (_, j) => paragraph(c * PARAGRAPHS_PER_CONTENT + j));
    contentIds.push((await call(url, headers, 'POST', '/api/v1/contents', { collection_id: collection.id, name: `doc ${c}`, text: paragraphs.join('\n\n') })).id);
  });
  const uploadMs = Date.now() - uploadStarted;
  // Until every content is `completed` (GET /api/v1/contents/{id}), checking the unfinished ones.
  let pending = [...contentIds];
  while (pending.length > 0) {
    const still = [];
    await inParallel(pending, 4, async (id) => {
      const { status, error } = await call(url, headers, 'GET', `/api/v1/contents/${id}`);
      if (status === 'failed') throw new Error(`content ${id} failed: ${error}`);
      if (status !== 'completed') still.push(id);
    });
    pending = still;
    if (pending.length > 0) await new Promise((r) => setTimeout(r, 1000));
  }
  const ingestMs = Date.now() - uploadStarted;
  process.stdout.write(`  contents completed after ${seconds(ingestMs)}\n`);
  const { stats } = await call(url, headers, 'GET', `/api/v1/collections/${collection.id}`);
  // Memories are indexed for search by a reactor: the last one created found first means all are.
  const lastMemory = CONTEXT_MEMORIES - 1;
  for (let i = 0; ; i++) {
    const found = await call(url, headers, 'POST', '/api/v1/memories/search', { query: memoryText(lastMemory), limit: 1 });
    if (found.results[0]?.memory_id === memoryIds[lastMemory]) break;
    if (i > 1200) throw new Error('memories were not indexed in time');
    await new Promise((r) => setTimeout(r, 250));
  }
  const memoriesIndexedMs = Date.now() - started;
  const conversation = await call(url, headers, 'POST', '/api/v1/conversations', { title: 'context bench', collection_ids: [collection.id] });
  for (let i = 0; i < CONTEXT_MESSAGES; i++) {
    await call(url, headers, 'POST', `/api/v1/conversations/${conversation.id}/messages`, { content: messageText(i), role: i % 2 === 0 ? 'user' : 'assistant' });
  }
  const sample = await call(url, headers, 'POST', `/api/v1/conversations/${conversation.id}/context`, {});
  process.stdout.write(
    `  ${CONTEXT_MEMORIES} memories created in ${seconds(memoriesMs)} (indexed for search after ${seconds(memoriesIndexedMs)}); ` +
      `${contents} contents of ${PARAGRAPHS_PER_CONTENT} paragraphs uploaded in ${seconds(uploadMs)}, completed after ${seconds(ingestMs)} → ${stats.chunk_count} chunks (${(stats.chunk_count / (ingestMs / 1000)).toFixed(0)} chunks/s)\n` +
      `  a context: ${sample.messages.length} messages, ${sample.memories.length} memories, ${sample.chunks.length} chunks, ${sample.total_tokens} tokens${sample.warnings.length ? `, warnings: ${sample.warnings.join('; ')}` : ''}\n`,
  );
  if (sample.memories.length === 0 || sample.chunks.length === 0) throw new Error(`the context found no ${sample.memories.length === 0 ? 'memories' : 'chunks'}: ${sample.warnings.join('; ')}`);
  const path = `/api/v1/conversations/${conversation.id}/context`;
  // Default body: the query is the last user message, the same each time (its embedding cached after the first).
  const repeated = check('context', await runLoad({ url, concurrency: 1, count: CONTEXT_REQUESTS, request: () => ({ method: 'POST', path, body: {}, headers }) }));
  // A next turn's query is new text: a different query each call.
  const fresh = check('context', await runLoad({ url, concurrency: 1, count: CONTEXT_REQUESTS, request: (i) => ({ method: 'POST', path, body: { query: messageText(500_000 + i) }, headers }) }));
  // Where a context's time goes (the response's own timings; memory and passage search run side by side).
  const timings = [];
  for (let i = 0; i < 20; i++) timings.push((await call(url, headers, 'POST', path, { query: messageText(600_000 + i) })).timings);
  const median = (key) => timings.map((t) => t[key]).sort((a, b) => a - b)[Math.floor(timings.length / 2)];
  process.stdout.write(
    `  where a context's time goes (medians of 20 new queries): conversation ${median('messages_ms')} ms, memory search ${median('memories_ms')} ms, passage search ${median('chunks_ms')} ms, token counting ${median('tokens_ms')} ms\n`,
  );
  return { repeated, fresh, chunks: stats.chunk_count, ingestMs };
}

// ---- output ----

function row(label, r, base) {
  const ratio = base ? `  p50 ×${(r.p50 / base.p50).toFixed(2)}  throughput ×${(r.throughput / base.throughput).toFixed(2)}` : '';
  const fails = r.failures ? `  FAILURES ${r.failures} (${r.firstFailure})` : '';
  return `${label.padEnd(44)} ${r.throughput.toFixed(0).padStart(7)}/s  p50 ${r.p50.toFixed(2).padStart(7)} ms  p95 ${r.p95.toFixed(2).padStart(7)} ms${ratio}${fails}`;
}

const summary = [];
function target(figure, value, text, met) {
  summary.push({ figure, value, text, met: met === undefined ? '—' : met ? 'met' : 'NOT MET' });
}

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    for (const { child } of children) child.kill('SIGTERM');
    setTimeout(() => {
      rmSync(ROOT, { recursive: true, force: true });
      process.exit(130);
    }, 2000);
  });
}

try {
  console.log(
    `bench:conversations  appends=${COUNT} at concurrency ${CONCURRENCY} over ${APPEND_CONVERSATIONS} conversations of ${APPEND_USERS} users; ` +
      `${MESSAGES} messages in ${LOAD_CONVERSATIONS} conversations of ${LOAD_USERS} users; reads ${READS} per figure at concurrency ${READ_CONCURRENCY}; ` +
      `context: ${CONTEXT_CHUNKS} chunks, ${CONTEXT_MEMORIES} memories; node ${process.version}, ${cpus().length} cores`,
  );
  const ms = (r) => `p50 ${r.p50.toFixed(2)} ms (p95 ${r.p95.toFixed(2)})`;

  if (PARTS.has('appends')) {
    const baselineServer = await start('baseline', ['tools/bench/baseline-server.mjs'], {}, '/items');
    const baseline = check('baseline', await runLoad({ url: baselineServer.url, concurrency: CONCURRENCY, count: COUNT, request: (i) => ({ method: 'POST', path: '/items', body: appendBody(i) }) }));
    await stop(baselineServer);
    console.log(row('baseline insert (bare)', baseline));

    const standaloneServer = await start('standalone-appends', [...startFlags(), 'dist/standalone.js'], {}, '/ready');
    const standalone = await benchAppends('standalone', standaloneServer.url);
    await stop(standaloneServer);
    console.log(row('standalone append', standalone.append, baseline));

    const distributedServer = await start('distributed-appends', [...startFlags(), 'dist/distributed.js'], { NATS_URL, NATS_SUBJECT_PREFIX: `bench${process.pid}` }, '/ready');
    const distributed = await benchAppends('distributed', distributedServer.url);
    await stop(distributedServer);
    await removeNatsLeftovers(NATS_URL, `bench${process.pid}`);
    console.log(row('distributed append', distributed.append, baseline));

    target('standalone append throughput', `${standalone.append.throughput.toFixed(0)}/s`, '≥ 2000/s', standalone.append.throughput >= 2000);
    target('standalone append p50 / baseline p50', `×${(standalone.append.p50 / baseline.p50).toFixed(2)} (${standalone.append.p50.toFixed(2)} / ${baseline.p50.toFixed(2)} ms)`, '≤ 1.2×', standalone.append.p50 <= 1.2 * baseline.p50);
    target('distributed append throughput', `${distributed.append.throughput.toFixed(0)}/s`, '—');
    target('distributed append p50 / baseline p50', `×${(distributed.append.p50 / baseline.p50).toFixed(2)} (×${(distributed.append.p50 / standalone.append.p50).toFixed(2)} of standalone)`, '—');
  }

  if (PARTS.has('reads') || PARTS.has('context')) {
    const lore = await start('standalone', [...startFlags(), 'dist/standalone.js'], {}, '/ready');
    if (PARTS.has('reads')) {
      console.log(`\nloading ${MESSAGES} messages into ${LOAD_CONVERSATIONS} conversations of ${LOAD_USERS} users (concurrency ${LOAD_CONCURRENCY})…`);
      const loaded = await loadMessages(lore.url);
      console.log(`  loaded in ${seconds(loaded.loadMs)}: ${loaded.load.throughput.toFixed(0)} appends/s, p50 ${loaded.load.p50.toFixed(2)} ms, p95 ${loaded.load.p95.toFixed(2)} ms`);
      const reads = await benchReads(lore.url, loaded);
      const lists = [
        ['GET /conversations', reads.lists.conversations],
        ['GET /conversations?sort_by=title', reads.lists.conversationsByTitle],
        ['GET /api/v1/messages?conversation_id=…', reads.lists.messagesOfConversation],
        ["GET /api/v1/messages (a user's)", reads.lists.messagesOfUser],
        ['GET /api/v1/conversations/{id}/messages', reads.lists.activePath],
      ];
      for (const [label, r] of lists) console.log(row(label, r));
      console.log(row('GET /api/v1/messages?search=<topic>', reads.search.one));
      console.log(row('GET /api/v1/messages?search=<common> <topic>', reads.search.two));
      console.log(row('GET /api/v1/messages?search=<common word>', reads.search.common));

      target(`load ${MESSAGES} messages`, `${seconds(loaded.loadMs)} (${loaded.load.throughput.toFixed(0)}/s)`, '—');
      for (const [label, r] of lists) target(label, ms(r), '≤ 10 ms p50', r.p50 <= 10);
      target('search one topic word', ms(reads.search.one), '≤ 20 ms p50', reads.search.one.p50 <= 20);
      target('search common + topic word', ms(reads.search.two), '≤ 20 ms p50', reads.search.two.p50 <= 20);
      target('search one common word', ms(reads.search.common), '—');
    }
    if (PARTS.has('context')) {
      console.log(`\ncontext: ${CONTEXT_MEMORIES} memories, ${CONTEXT_CHUNKS} paragraphs in a collection (chunk_size 64), a ${CONTEXT_MESSAGES}-message conversation…`);
      const context = await benchContext(lore.url);
      console.log(row('POST …/context (new query each call)', context.fresh));
      console.log(row('POST …/context (default query, repeated)', context.repeated));
      target(`ingest ${context.chunks} chunks`, seconds(context.ingestMs), '—');
      target(`context (${context.chunks} chunks), new query`, ms(context.fresh), '—');
      target(`context (${context.chunks} chunks), repeated query`, ms(context.repeated), '—');
    }
    await stop(lore);
  }

  console.log('');
  const widths = [46, 40, 12];
  console.log(`${'figure'.padEnd(widths[0])} ${'value'.padEnd(widths[1])} ${'target'.padEnd(widths[2])} result`);
  for (const s of summary) console.log(`${s.figure.padEnd(widths[0])} ${s.value.padEnd(widths[1])} ${s.text.padEnd(widths[2])} ${s.met}`);
} finally {
  for (const c of children) await stop(c);
  rmSync(ROOT, { recursive: true, force: true });
}
