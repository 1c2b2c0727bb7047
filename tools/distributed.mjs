// Runs the distributed topology on one machine: gateway, keys and memory as separate
// processes talking over the NATS at NATS_URL. Each service keeps its stores in its own
// DATA_DIR/<service> (or the production engines, when EVENTSTORE_URL / MONGODB_URL are set).
// Stops all three on SIGINT/SIGTERM, and stops the rest if one dies.
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

const env = { ...process.env, NATS_URL: process.env.NATS_URL ?? 'nats://127.0.0.1:4222' };
const dataDir = resolve(env.DATA_DIR ?? './data');
const services = ['keys', 'memory', 'gateway'];
const children = [];
let stopping = false;

function stop(code) {
  if (stopping) return;
  stopping = true;
  for (const child of children) child.kill('SIGTERM');
  setTimeout(() => process.exit(code), 3000).unref();
  Promise.all(children.map((c) => new Promise((r) => (c.exitCode !== null ? r() : c.once('exit', r))))).then(() => process.exit(code));
}

for (const service of services) {
  const dir = join(dataDir, service);
  mkdirSync(dir, { recursive: true });
  // The master key is shared: keys and memory must agree on it when it is generated locally.
  const childEnv = { ...env, DATA_DIR: service === 'gateway' ? dir : dataDir };
  const child = spawn(process.execPath, ['--enable-source-maps', join('dist', `${service}.js`)], { env: childEnv, stdio: ['ignore', 'inherit', 'inherit'] });
  child.on('exit', (code) => {
    if (!stopping) {
      process.stderr.write(`${service} exited with ${code}; stopping the others\n`);
      stop(code ?? 1);
    }
  });
  children.push(child);
}

process.on('SIGINT', () => stop(0));
process.on('SIGTERM', () => stop(0));
