// What the kill probes share: starting the standalone bundle, waiting for it to be ready, and for it to exit.
import { spawn } from 'node:child_process';
import { freePort } from '../bench/load.mjs';
import { BENCH_LORE_ENV } from '../bench/bench-env.mjs';

/** Resolves once `url`/ready answers 200; rejects if the process exits first or `tries` polls (50 ms apart) pass. */
export async function untilReady(child, url, tries) {
  for (let i = 0; i < tries; i++) {
    if (child.exitCode !== null) throw new Error(`Lore exited with ${child.exitCode} before it was ready`);
    try {
      if ((await fetch(`${url}/ready`)).status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('Lore did not become ready');
}

export function exited(child) {
  return child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((r) => child.once('exit', r));
}

/** Starts the standalone bundle `entry` on `dataDir` with a JWT secret and a fresh port; resolves once it is ready. */
export async function startStandalone({ entry, dataDir, secret, env = {}, stdout = 'ignore', stderr = 'inherit' }) {
  const port = await freePort();
  const child = spawn(process.execPath, [entry], {
    env: { ...process.env, ...BENCH_LORE_ENV, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, AUTH_JWT_SECRET: secret, LOG_LEVEL: 'silent', LORE_MASTER_KEY: '', ...env },
    stdio: ['ignore', stdout, stderr],
  });
  const url = `http://127.0.0.1:${port}`;
  await untilReady(child, url, 300);
  return { child, url };
}
