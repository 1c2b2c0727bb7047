// Starts dist/standalone.js in a temporary DATA_DIR (with the shared model) and gives a small
// authenticated JSON client over it: the harness of the knowledge benchmarks.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { SignJWT } from 'jose';
import { freePort, stopChild } from './load.mjs';
import { BENCH_LORE_ENV } from './bench-env.mjs';
import { startFlags } from './start-flags.mjs';

const SECRET = 'bench-secret';
export const MODELS_DIR = resolve(process.env.MODELS_DIR ?? join(import.meta.dirname, '../../../shared/models'));
export const DATA_DIR = resolve(process.env.BENCH_DATA ?? join(import.meta.dirname, '../../../shared/data'));

/** A JWT the started Lore accepts (tools/mint-jwt.mjs mints the same with AUTH_JWT_SECRET). */
export function mintToken({ workspace = 'bench', sub = 'bench-user' } = {}) {
  return new SignJWT({ workspace_id: workspace }).setProtectedHeader({ alg: 'HS256' }).setSubject(sub).setExpirationTime('12h').sign(new TextEncoder().encode(SECRET));
}

export async function startLore(env = {}) {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'lore-bench-knowledge-'));
  const child = spawn(process.execPath, [...(process.env.LORE_NODE_ARGS?.split(' ').filter(Boolean) ?? startFlags()), join(import.meta.dirname, '../..', process.env.LORE_DIST ?? 'dist', 'standalone.js')], {
    env: { ...process.env, ...BENCH_LORE_ENV, MODELS_DIR, ...env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, AUTH_JWT_SECRET: SECRET, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  const token = await mintToken();
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  async function call(method, path, body) {
    const res = await fetch(url + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
    return JSON.parse(text);
  }
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${url}/ready`)).status === 200) break;
    } catch {
      // not listening yet
    }
    if (i > 600) throw new Error('Lore did not become ready');
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    headers,
    call,
    pid: child.pid,
    async stop() {
      await stopChild(child);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Runs `work(item)` over items, `concurrency` at a time. */
export async function inParallel(items, concurrency, work) {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) {
        const i = next++;
        await work(items[i], i);
      }
    }),
  );
}

/** Polls the collection's contents until none is new or processing; returns the statuses seen. */
export async function untilProcessed(lore, collectionId, { timeoutMs = 60 * 60_000 } = {}) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const pending = await lore.call('GET', `/api/v1/contents?collection_id=${collectionId}&status=new&limit=1`);
    const processing = await lore.call('GET', `/api/v1/contents?collection_id=${collectionId}&status=processing&limit=1`);
    if (pending.total_count + processing.total_count === 0) break;
    if (Date.now() > deadline) throw new Error('ingestion did not finish in time');
    await new Promise((r) => setTimeout(r, 250));
  }
  const failed = await lore.call('GET', `/api/v1/contents?collection_id=${collectionId}&status=failed&limit=5`);
  if (failed.total_count > 0) throw new Error(`${failed.total_count} contents failed, e.g. ${failed.contents[0].error}`);
}

export function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}
