// npm run probe:kill-during-webhook-delivery — integration events and webhooks against kill -9.
// Starts the standalone app (dist/standalone.js) with a webhook pointing at a receiver started
// here, then, PROBE_KILLS times, creates memories concurrently and kills the process with
// SIGKILL at a random moment while creates, event publishing and deliveries are under way,
// and starts it again on the same DATA_DIR. Afterwards every acknowledged create must have its
// `memory.created` event in the event feed (read back over GET /api/v1/events?after=0), and
// every event in the feed must have reached the receiver at least once (deliveries are at
// least once: a kill between a POST and its log entry sends it again; counted, not failed).
// Knobs: PROBE_KILLS (default 5), PROBE_WRITES per round (default 40), PROBE_ENTRY.
import { createServer } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { exited, startStandalone } from './lore-process.mjs';

const KILLS = Number(process.env.PROBE_KILLS ?? 5);
const WRITES = Number(process.env.PROBE_WRITES ?? 40);
const ENTRY = process.env.PROBE_ENTRY ?? 'dist/standalone.js';
const SECRET = 'probe-secret';
const SETTLE_MS = 60_000;
// Quick retries: a delivery a kill cut off is due again soon after the restart.
const ENV = { LORE_EGRESS_ALLOW: '127.0.0.1', WEBHOOK_POLL_MS: '100', WEBHOOK_RETRY_SCHEDULE_MS: '200,400,800' };

const received = new Map();
const receiver = createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    const id = request.headers['webhook-id'];
    received.set(id, (received.get(id) ?? 0) + 1);
    response.writeHead(200).end('ok');
  });
});
await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const dataDir = mkdtempSync(join(tmpdir(), 'lore-webhook-probe-'));
const token = await new SignJWT({ workspace_id: 'probe' }).setProtectedHeader({ alg: 'HS256' }).setSubject('prober').setExpirationTime('1h').sign(new TextEncoder().encode(SECRET));

let lore;
try {
  lore = await startStandalone({ entry: ENTRY, dataDir, secret: SECRET, env: ENV });
  const call = (method, path, body) =>
    fetch(`${lore.url}${path}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body && JSON.stringify(body) });
  const webhook = await (await call('POST', '/api/v1/webhooks', { url: `http://127.0.0.1:${receiver.address().port}/hook`, event_types: ['memory.created'] })).json();

  const acknowledged = [];
  for (let kill = 1; kill <= KILLS; kill++) {
    const writes = Array.from({ length: WRITES }, (_, i) =>
      call('POST', '/api/v1/memories', { memory: `probe ${kill} ${i}` })
        .then(async (reply) => reply.status === 201 && acknowledged.push((await reply.json()).memory_id))
        .catch(() => undefined),
    );
    await new Promise((resolve) => setTimeout(resolve, 100 + Math.random() * 400));
    lore.child.kill('SIGKILL');
    await exited(lore.child);
    await Promise.allSettled(writes);
    lore = await startStandalone({ entry: ENTRY, dataDir, secret: SECRET, env: ENV });
  }

  const deadline = Date.now() + SETTLE_MS;
  let events = [];
  for (;;) {
    events = await feedEvents(lore.url);
    const undelivered = events.filter((event) => !received.has(event.event_id));
    if (undelivered.length === 0 || Date.now() > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  const inFeed = new Set(events.map((event) => event.memory_id));
  const lostEvents = acknowledged.filter((id) => !inFeed.has(id)).length;
  const undelivered = events.filter((event) => !received.has(event.event_id)).length;
  const deliveries = [...received.values()].reduce((sum, n) => sum + n, 0);
  const log = await (await call('GET', `/api/v1/webhooks/${webhook.id}/deliveries?limit=100&status=failed`)).json();
  console.log(`${KILLS} kills: ${acknowledged.length} creates acknowledged, ${events.length} memory.created events in the feed, ${lostEvents} acknowledged without an event`);
  console.log(`webhook: ${received.size} events delivered (${deliveries} requests, ${deliveries - received.size} sent again after a kill), ${undelivered} never delivered, ${log.deliveries.length} failed in the log`);
  const ok = lostEvents === 0 && undelivered === 0 && log.deliveries.length === 0;
  console.log(ok ? 'PASS' : 'FAIL');
  process.exitCode = ok ? 0 : 1;
} finally {
  lore?.child.kill('SIGKILL');
  receiver.close();
  rmSync(dataDir, { recursive: true, force: true });
}

/** Every memory.created event of the workspace, read from the start of the feed until the stream idles. */
async function feedEvents(url) {
  const controller = new AbortController();
  const response = await fetch(`${url}/api/v1/events?after=0&types=memory.created`, { headers: { authorization: `Bearer ${token}` }, signal: controller.signal });
  const decoder = new TextDecoder();
  let text = '';
  let idle = setTimeout(() => controller.abort(), 1_000);
  try {
    for await (const chunk of response.body) {
      text += decoder.decode(chunk, { stream: true });
      clearTimeout(idle);
      idle = setTimeout(() => controller.abort(), 1_000);
    }
  } catch {
    // aborted once nothing more came for a second
  }
  clearTimeout(idle);
  return text.split('\n').filter((line) => line.startsWith('data: ')).map((line) => JSON.parse(line.slice(6)));
}
