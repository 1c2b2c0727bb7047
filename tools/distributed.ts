/**
 * Runs the distributed topology on one machine: the gateway and one process per registered
 * context, talking over the NATS at NATS_URL (`npm run start:distributed`). Each service
 * keeps its stores under DATA_DIR/<context> (or the production engines, when EVENTSTORE_URL
 * / MONGODB_URL are set). Stops all on SIGINT/SIGTERM, and the rest if one dies.
 * With METRICS_PORT set, the services serve `/metrics` on consecutive ports from it, in the
 * order of apps/contexts.ts (the first on METRICS_PORT, the next on METRICS_PORT + 1, …); the
 * gateway serves it on PORT.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CONTEXTS } from '../apps/contexts';

const env: NodeJS.ProcessEnv = { ...process.env, NATS_URL: process.env['NATS_URL'] ?? 'nats://127.0.0.1:4222' };
const dataDir = resolve(process.env['DATA_DIR'] ?? './data');
const processes = [...CONTEXTS.map((c) => c.service.name), 'gateway'];
const metricsBase = process.env['METRICS_PORT']?.trim() ? Number(process.env['METRICS_PORT']) : undefined;
const children: ChildProcess[] = [];
let stopping = false;

function stop(code: number): void {
  if (stopping) return;
  stopping = true;
  for (const child of children) child.kill('SIGTERM');
  setTimeout(() => process.exit(code), 3000).unref();
  void Promise.all(children.map((c) => new Promise((r) => (c.exitCode !== null ? r(null) : c.once('exit', r))))).then(() => process.exit(code));
}

/**
 * The services' Node flags: source maps always, and the launcher's heap sizes
 * (`npm run start:distributed` sets them, README "Node flags"). Other flags stay with the
 * launcher: six processes would share an inspector port, a profile or report file name.
 */
const serviceFlags = ['--enable-source-maps', ...process.execArgv.filter((flag) => /^--max-(semi|old)-space-size=\d+$/.test(flag))];

for (const name of processes) {
  // Services share DATA_DIR (each uses its <context> subdirectory, and they must agree on a
  // locally generated master key). The gateway stores no data: its own directory holds at most
  // event-id.key, the secret SSE ids are sealed with when neither LORE_EVENT_ID_SECRET nor
  // LORE_MASTER_KEY is set (fine for this one gateway; several must share LORE_EVENT_ID_SECRET).
  const dir = name === 'gateway' ? join(dataDir, 'gateway') : dataDir;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const index = processes.indexOf(name);
  // Ports cannot be shared by processes: one each, and none for the gateway (it has PORT).
  const metricsPort = name === 'gateway' || metricsBase === undefined ? '' : String(metricsBase + index);
  const child = spawn(process.execPath, [...serviceFlags, join(__dirname, `${name}.js`)], { env: { ...env, DATA_DIR: dir, METRICS_PORT: metricsPort }, stdio: ['ignore', 'inherit', 'inherit'] });
  child.on('exit', (code) => {
    if (!stopping) {
      process.stderr.write(`${name} exited with ${String(code)}; stopping the others\n`);
      stop(code ?? 1);
    }
  });
  children.push(child);
}

process.on('SIGINT', () => stop(0));
process.on('SIGTERM', () => stop(0));
