// node tools/probes/kill-during-conversation-writes.mjs — conversation writes against kill -9.
// Each round starts the standalone app (dist/standalone.js) on a fresh DATA_DIR, creates
// conversations with a few messages and a side branch each, then fires at once a burst of
// appends (each with its own client_message_id and a unique word), DELETEs of side-branch
// messages (a message and its reply) and DELETEs of whole conversations, and kills the
// process with SIGKILL a random 5–65 ms into it. Lore is then started again on the same files:
//   1. every acknowledged append is readable, with its content (unless its conversation is gone);
//   2. retrying every append with its client_message_id leaves exactly one message per client
//      id, and the retry of an acknowledged append answers the message it acknowledged;
//   3. each conversation's message_count is the number of its messages on every branch, its
//      current_message_id a live message of it or null, and its active path a parent chain
//      from a root to that message (checked before and after the retries);
//   4. every acknowledged deletion stayed deleted (404); one not acknowledged may have
//      happened or not (if not, it is deleted again). After a clean stop (SIGTERM) the
//      distinctive words of every deleted conversation and message appear in no file under
//      DATA_DIR, while those of side branches nobody deleted still do (the scan finds words).
// Knobs: PROBE_ROUNDS (default 10), PROBE_CONVERSATIONS (default 10), PROBE_APPENDS (appends per
// conversation in the burst, default 5), PROBE_KILL_MS (the kill comes 5 ms to this many ms into the
// burst, default 300: the burst takes some 400 ms to answer, so earlier kills leave almost nothing
// acknowledged to check), PROBE_ENTRY (the standalone bundle, default dist/standalone.js).
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { exited, startStandalone } from './lore-process.mjs';

const ROUNDS = Number(process.env.PROBE_ROUNDS ?? 10);
const CONVERSATIONS = Number(process.env.PROBE_CONVERSATIONS ?? 10);
const APPENDS = Number(process.env.PROBE_APPENDS ?? 5);
const KILL_MS = Math.max(5, Number(process.env.PROBE_KILL_MS ?? 300));
const SECRET = 'probe-secret';
const ENTRY = process.env.PROBE_ENTRY ?? 'dist/standalone.js';

const start = (dataDir) => startStandalone({ entry: ENTRY, dataDir, secret: SECRET });

function filesUnder(dir) {
  return readdirSync(dir).flatMap((name) => (statSync(join(dir, name)).isDirectory() ? filesUnder(join(dir, name)) : [join(dir, name)]));
}

const token = await new SignJWT({ workspace_id: 'probe' }).setProtectedHeader({ alg: 'HS256' }).setSubject('probe-user').setExpirationTime('1h').sign(new TextEncoder().encode(SECRET));
const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };

/** One request: its status and JSON body (null when none). Rejects when the connection breaks. */
async function call(base, method, path, body) {
  const res = await fetch(`${base}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await res.text();
  let json = null;
  try {
    json = text === '' ? null : JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: res.status, json };
}

async function created(base, path, body) {
  const { status, json } = await call(base, 'POST', path, body);
  if (status !== 201) throw new Error(`setup: POST ${path} answered ${status}: ${JSON.stringify(json)}`);
  return json;
}

function shuffle(items) {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [items[i], items[j]] = [items[j], items[i]];
  }
  return items;
}

const totals = { appends: 0, appendsAcked: 0, messageDeletes: 0, messageDeletesAcked: 0, conversationDeletes: 0, conversationDeletesAcked: 0, conversationsGone: 0, sideBranchesGone: 0, unansweredAppends: 0, unansweredDeletions: 0 };
const violations = { lostAppends: 0, duplicates: 0, inconsistent: 0, lostDeletions: 0, onDisk: 0, other: 0 };
const report = (kind, round, text) => {
  violations[kind]++;
  process.stdout.write(`  round ${round} violation (${kind}): ${text}\n`);
};

for (let round = 1; round <= ROUNDS; round++) {
  const dataDir = mkdtempSync(join(tmpdir(), 'lore-probe-conversations-'));
  let lore = await start(dataDir);
  const base = () => lore.url;

  // Every conversation: three messages on its active path, and a side branch under the first
  // (a message and its reply) with the active path moved back to the third. Every fifth
  // conversation is deleted in the burst; every other remaining one loses its side branch.
  const conversations = [];
  for (let i = 0; i < CONVERSATIONS; i++) {
    const word = `probeword${round}x${i}c`; // the words end in a letter: no word is a prefix of another
    const conversation = await created(base(), '/api/v1/conversations', { title: `probe ${round} ${i} ${word}` });
    const path = [];
    for (let k = 0; k < 3; k++) path.push((await created(base(), `/api/v1/conversations/${conversation.id}/messages`, { content: `${word} message ${k}` })).id);
    const sideWord = `probeword${round}x${i}s`;
    const replyWord = `probeword${round}x${i}t`;
    const side = await created(base(), `/api/v1/conversations/${conversation.id}/messages`, { content: `${word} side branch ${sideWord}`, parent_message_id: path[0] });
    const reply = await created(base(), `/api/v1/conversations/${conversation.id}/messages`, { content: `${word} reply ${replyWord}`, role: 'assistant' });
    const back = await call(base(), 'PATCH', `/api/v1/conversations/${conversation.id}`, { current_message_id: path[2] });
    if (back.status !== 200) throw new Error(`setup: PATCH current_message_id answered ${back.status}: ${JSON.stringify(back.json)}`);
    const deleteConversation = i % 5 === 4;
    conversations.push({
      i,
      id: conversation.id,
      word,
      side: { id: side.id, reply: reply.id, words: [sideWord, replyWord] },
      deleteConversation,
      deleteSide: !deleteConversation && i % 2 === 0,
    });
  }

  // The burst: appends to every conversation (two to those being deleted), the side-branch
  // deletions and the conversation deletions, in random order, all in flight at once.
  const appends = [];
  const deletions = [];
  const requests = [];
  for (const c of conversations) {
    for (let k = 0; k < (c.deleteConversation ? 2 : APPENDS); k++) {
      const append = { conversation: c, clientId: `probe-r${round}-c${c.i}-a${k}`, content: `append probeappend${round}x${c.i}a${k}z of ${c.word}`, status: null, id: null };
      appends.push(append);
      requests.push(() =>
        call(base(), 'POST', `/api/v1/conversations/${c.id}/messages`, { content: append.content, client_message_id: append.clientId }).then(
          ({ status, json }) => {
            append.status = status;
            if (status === 201) append.id = json.id;
          },
          () => undefined,
        ),
      );
    }
    const deletion = c.deleteConversation
      ? { kind: 'conversation', conversation: c, path: `/api/v1/conversations/${c.id}`, words: [c.word, ...c.side.words], status: null }
      : c.deleteSide
        ? { kind: 'message', conversation: c, path: `/api/v1/messages/${c.side.id}`, words: c.side.words, status: null }
        : null;
    if (deletion !== null) {
      deletions.push(deletion);
      requests.push(() => call(base(), 'DELETE', deletion.path).then(({ status }) => void (deletion.status = status), () => undefined));
    }
  }
  // One open connection per request first, so that the burst reaches Lore at once instead of
  // waiting for connections to be made while the kill timer runs.
  await Promise.all(requests.map(() => call(base(), 'GET', '/api/v1/conversations?limit=1')));
  const burst = shuffle(requests).map((request) => request());
  await new Promise((r) => setTimeout(r, 5 + Math.random() * (KILL_MS - 5)));
  lore.child.kill('SIGKILL');
  await Promise.allSettled(burst);
  await exited(lore.child);
  const ackedAppends = appends.filter((a) => a.status === 201);
  // A DELETE (of a conversation, of a message) answers 202 when its erasure (its messages' purge) outlasts the request's wait: stored, and gone from reads.
  const acked = (d) => d.status === 200 || d.status === 202;
  for (const a of appends) if (a.status !== null && a.status !== 201 && !(a.status === 404 && a.conversation.deleteConversation)) report('other', round, `append ${a.clientId} to ${a.conversation.id} answered ${a.status} before the kill`);
  for (const d of deletions) if (d.status !== null && !acked(d)) report('other', round, `DELETE ${d.path} answered ${d.status} before the kill`);

  lore = await start(dataDir);

  // 4 (first half): what is gone after the restart; acknowledged deletions must be.
  const gone = new Set(); // conversation ids whose GET is 404
  for (const c of conversations) {
    const { status } = await call(base(), 'GET', `/api/v1/conversations/${c.id}`);
    if (status === 404) gone.add(c.id);
    else if (status !== 200) report('other', round, `GET conversation ${c.id} answered ${status} after the restart`);
  }
  const sideGone = new Set(); // side messages whose GET is 404 (their conversation's or their own deletion)
  for (const c of conversations) {
    const side = (await call(base(), 'GET', `/api/v1/messages/${c.side.id}`)).status;
    const reply = (await call(base(), 'GET', `/api/v1/messages/${c.side.reply}`)).status;
    if (side === 404) sideGone.add(c.id);
    if (side === 404 && reply !== 404) report('lostDeletions', round, `side message ${c.side.id} of ${c.id} is gone but its reply ${c.side.reply} answers ${reply}`);
    if (gone.has(c.id) && side !== 404) report('lostDeletions', round, `conversation ${c.id} is gone but its message ${c.side.id} answers ${side}`);
  }
  for (const d of deletions) {
    const isGone = d.kind === 'conversation' ? gone.has(d.conversation.id) : sideGone.has(d.conversation.id);
    d.goneAfterRestart = isGone;
    if (acked(d) && !isGone) report('lostDeletions', round, `DELETE ${d.path} was acknowledged (${d.status}) but it is readable after the restart`);
  }
  if ([...sideGone].some((id) => !gone.has(id) && !conversations.find((c) => c.id === id).deleteSide)) report('other', round, 'a side branch nobody deleted is gone');

  // 3: the conversations' counters and active paths, as the kill left them.
  const live = conversations.filter((c) => !gone.has(c.id));
  const checkConversation = async (c, when) => {
    const record = await call(base(), 'GET', `/api/v1/conversations/${c.id}`);
    const all = await call(base(), 'GET', `/api/v1/conversations/${c.id}/messages?include_branches=true`);
    const path = await call(base(), 'GET', `/api/v1/conversations/${c.id}/messages`);
    if (record.status !== 200 || all.status !== 200 || path.status !== 200) {
      report('inconsistent', round, `${when}: conversation ${c.id} answered ${record.status}/${all.status}/${path.status}`);
      return null;
    }
    const { message_count: count, current_message_id: current } = record.json;
    if (count !== all.json.total_count || all.json.data.length !== all.json.total_count) {
      report('inconsistent', round, `${when}: conversation ${c.id} has message_count ${count} but lists ${all.json.total_count} messages (${all.json.data.length} returned) on every branch`);
    }
    if (current !== null) {
      const message = await call(base(), 'GET', `/api/v1/messages/${current}`);
      if (message.status !== 200 || message.json.conversation_id !== c.id) report('inconsistent', round, `${when}: conversation ${c.id} has current_message_id ${current}, which answers ${message.status}`);
    }
    if (path.json.current_message_id !== current) report('inconsistent', round, `${when}: conversation ${c.id} record says current ${current}, its messages listing ${path.json.current_message_id}`);
    const chain = path.json.data;
    const broken = chain.findIndex((m, k) => m.parent_message_id !== (k === 0 ? null : chain[k - 1].id));
    if (broken !== -1) report('inconsistent', round, `${when}: conversation ${c.id}: the active path's message ${chain[broken].id} has parent ${chain[broken].parent_message_id}, expected ${broken === 0 ? null : chain[broken - 1].id}`);
    if ((chain.at(-1)?.id ?? null) !== current) report('inconsistent', round, `${when}: conversation ${c.id}: the active path ends at ${chain.at(-1)?.id ?? null}, current_message_id is ${current}`);
    return all.json.data;
  };
  const recorded = new Set(); // client ids of the appends found after the restart
  for (const c of live) for (const m of (await checkConversation(c, 'after the restart')) ?? []) if (m.client_message_id !== null) recorded.add(m.client_message_id);
  const unansweredAppends = appends.filter((a) => a.status !== 201 && recorded.has(a.clientId)).length;
  const unansweredDeletions = deletions.filter((d) => !acked(d) && d.goneAfterRestart).length;

  // 1: acknowledged appends are readable (or gone with their conversation).
  for (const a of ackedAppends) {
    const { status, json } = await call(base(), 'GET', `/api/v1/messages/${a.id}`);
    const expected = gone.has(a.conversation.id) ? 404 : 200;
    if (status !== expected) report('lostAppends', round, `append ${a.clientId} was acknowledged as ${a.id} in ${a.conversation.id}${expected === 404 ? ' (since deleted)' : ''}; GET answers ${status}, expected ${expected}`);
    else if (status === 200 && json.content !== a.content) report('lostAppends', round, `append ${a.clientId} (${a.id}) reads back ${JSON.stringify(json.content)}, expected ${JSON.stringify(a.content)}`);
  }

  // 2: retry every append with its client_message_id, all at once.
  const retries = await Promise.all(
    appends.map(async (a) => ({ a, ...(await call(base(), 'POST', `/api/v1/conversations/${a.conversation.id}/messages`, { content: a.content, client_message_id: a.clientId })) })),
  );
  for (const { a, status, json } of retries) {
    if (gone.has(a.conversation.id)) {
      if (status !== 404) report('duplicates', round, `retry of ${a.clientId} in the deleted conversation ${a.conversation.id} answered ${status}, expected 404`);
      continue;
    }
    if (status !== 201 && status !== 200) report('duplicates', round, `retry of ${a.clientId} answered ${status}: ${JSON.stringify(json)}`);
    else if (a.id !== null && json.id !== a.id) report('duplicates', round, `retry of the acknowledged ${a.clientId} answered ${json.id}, it was acknowledged as ${a.id}`);
    else a.retryId = json.id;
  }
  for (const c of live) {
    const messages = await checkConversation(c, 'after the retries');
    if (messages === null) continue;
    const byClientId = new Map();
    for (const m of messages) if (m.client_message_id !== null) byClientId.set(m.client_message_id, [...(byClientId.get(m.client_message_id) ?? []), m.id]);
    for (const a of appends.filter((x) => x.conversation === c)) {
      const ids = byClientId.get(a.clientId) ?? [];
      if (ids.length !== 1) report('duplicates', round, `conversation ${c.id} lists ${ids.length} messages with client_message_id ${a.clientId}: ${ids.join(', ')}`);
      else if (a.retryId !== undefined && ids[0] !== a.retryId) report('duplicates', round, `retry of ${a.clientId} answered ${a.retryId}, the conversation lists ${ids[0]}`);
    }
  }

  // 4 (second half): deletions that did not happen are made again; then, after a clean stop,
  // no deleted word may be left in any file, and the words nobody deleted must be found.
  let redeleted = 0;
  for (const d of deletions.filter((x) => !x.goneAfterRestart)) {
    const { status } = await call(base(), 'DELETE', d.path);
    if (status === 200 || status === 202) redeleted++;
    else report('other', round, `DELETE ${d.path} again after the restart answered ${status}`);
  }
  // An erasure under way (a 202, before the kill or now) is followed until it ends, as a client would.
  for (const d of deletions) {
    for (let status = 202, tries = 0; status === 202 && tries < 300; tries++) {
      ({ status } = await call(base(), 'DELETE', d.path));
      if (status === 202) await new Promise((r) => setTimeout(r, 100));
    }
  }
  lore.child.kill('SIGTERM');
  await exited(lore.child);
  const files = filesUnder(dataDir).map((file) => ({ file, bytes: readFileSync(file) }));
  const holding = (word) => files.filter(({ bytes }) => bytes.includes(Buffer.from(word))).map(({ file }) => file.slice(dataDir.length + 1));
  for (const d of deletions) {
    for (const word of d.words) {
      const where = holding(word);
      if (where.length > 0) report('onDisk', round, `${word} of ${d.path} (${acked(d) ? 'acknowledged' : 'not acknowledged'}, ${d.goneAfterRestart ? 'gone after the restart' : 'deleted again'}) is still in ${where.join(', ')}`);
    }
  }
  for (const a of appends.filter((x) => x.conversation.deleteConversation)) {
    const word = `probeappend${round}x${a.conversation.i}a${a.clientId.split('-a').at(-1)}z`;
    const where = holding(word);
    if (where.length > 0) report('onDisk', round, `${word} appended to the deleted ${a.conversation.id} is still in ${where.join(', ')}`);
  }
  for (const c of conversations.filter((x) => !x.deleteConversation && !x.deleteSide)) {
    if (holding(c.side.words[0]).length === 0) report('other', round, `${c.side.words[0]}, of a side branch nobody deleted, is in no file: the scan would miss a leftover`);
  }

  const messageDeletes = deletions.filter((d) => d.kind === 'message');
  const conversationDeletes = deletions.filter((d) => d.kind === 'conversation');
  totals.appends += appends.length;
  totals.appendsAcked += ackedAppends.length;
  totals.messageDeletes += messageDeletes.length;
  totals.messageDeletesAcked += messageDeletes.filter(acked).length;
  totals.conversationDeletes += conversationDeletes.length;
  totals.conversationDeletesAcked += conversationDeletes.filter(acked).length;
  totals.conversationsGone += conversationDeletes.filter((d) => d.goneAfterRestart).length;
  totals.unansweredAppends += unansweredAppends;
  totals.unansweredDeletions += unansweredDeletions;
  totals.sideBranchesGone += messageDeletes.filter((d) => d.goneAfterRestart).length;
  process.stdout.write(
    `round ${round}: answered before kill -9: ${ackedAppends.length}/${appends.length} appends, ${messageDeletes.filter(acked).length}/${messageDeletes.length} message DELETEs, ` +
      `${conversationDeletes.filter(acked).length}/${conversationDeletes.length} conversation DELETEs; after restart ${messageDeletes.filter((d) => d.goneAfterRestart).length} side branches ` +
      `and ${conversationDeletes.filter((d) => d.goneAfterRestart).length} conversations gone; recorded but unanswered: ${unansweredAppends} appends, ${unansweredDeletions} deletions; ${redeleted} deleted again\n`,
  );
  rmSync(dataDir, { recursive: true, force: true });
}

process.stdout.write(
  `\n${ROUNDS} rounds x ${CONVERSATIONS} conversations: ${totals.appendsAcked}/${totals.appends} appends, ${totals.messageDeletesAcked}/${totals.messageDeletes} message deletions and ` +
    `${totals.conversationDeletesAcked}/${totals.conversationDeletes} conversation deletions acknowledged before the kill; ${totals.sideBranchesGone} side branches and ` +
    `${totals.conversationsGone} conversations gone after restart (recorded but unanswered: ${totals.unansweredAppends} appends, ${totals.unansweredDeletions} deletions); ${violations.lostAppends} acknowledged appends lost, ${violations.duplicates} retry violations, ` +
    `${violations.inconsistent} inconsistent conversations, ${violations.lostDeletions} acknowledged deletions readable, ${violations.onDisk} deleted words still on disk, ` +
    `${violations.other} other violations\n`,
);
if (Object.values(violations).some((n) => n > 0)) process.exit(1);
