// A closed-loop load generator: `concurrency` workers issue `count` requests in total,
// each worker sending its next request when the previous answer arrives.
import { createServer } from 'node:net';
import { Pool } from 'undici';

/** The middle value (the upper one of an even count): what benchmarks report over rounds. */
export const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** A port free at the time of asking, for a server the benchmark starts. */
export function freePort() {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

export async function runLoad({ url, concurrency, count, request }) {
  const pool = new Pool(url, { connections: concurrency, pipelining: 1 });
  const latencies = new Float64Array(count);
  let next = 0;
  let failures = 0;
  let firstFailure = null;
  const started = process.hrtime.bigint();
  async function worker() {
    for (;;) {
      const i = next++;
      if (i >= count) return;
      const { method, path, body, headers } = request(i);
      const t0 = process.hrtime.bigint();
      const res = await pool.request({ method, path, headers: { 'content-type': 'application/json', ...headers }, body: body === undefined ? undefined : JSON.stringify(body) });
      const text = await res.body.text();
      latencies[i] = Number(process.hrtime.bigint() - t0) / 1e6;
      if (res.statusCode >= 300) {
        failures++;
        firstFailure ??= `${res.statusCode} ${text.slice(0, 200)}`;
      }
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  await pool.close();
  const sorted = Array.from(latencies).sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { count, seconds, throughput: count / seconds, p50: at(0.5), p95: at(0.95), failures, firstFailure };
}

/** Stops a child process with SIGTERM and waits for it; one that has already ended (by code or signal) returns at once. */
export async function stopChild(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

/**
 * Removes what a distributed run under `prefix` left on the shared NATS: its JetStream event
 * stream (Lore keeps integration events for days) and its rate-limit bucket (a KV stream).
 */
export async function removeNatsLeftovers(natsUrl, prefix) {
  const { connect } = await import('nats');
  const nc = await connect({ servers: natsUrl });
  try {
    const jsm = await nc.jetstreamManager();
    await jsm.streams.delete(`${prefix.toUpperCase()}_EVENTS`).catch(() => undefined);
    await jsm.streams.delete(`KV_${prefix}_RATE_LIMITS`).catch(() => undefined);
  } finally {
    await nc.close();
  }
}
