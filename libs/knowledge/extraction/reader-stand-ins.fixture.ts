import { join } from 'node:path';

import { build } from 'esbuild';

import { MAX_LINE_CHARS, TEXT_PIECE_CHARS } from './reader-protocol';

/**
 * Scripts for extraction-processes.int.spec.ts: stand-in readers, each doing what no real file
 * can be relied on to make the real reader do, and two small services that run
 * ExtractionProcesses in a process of their own.
 */
// What every stand-in reader is bundled with: the reader's channel at its fd 3, `send` on it,
// `onTask` for a task's header (its bytes follow in chunks, which the stand-ins have no use
// for), and text as the real reader sends it. It exits when the service closes the channel.
const PREAMBLE = `
import { Socket } from 'node:net';
import { JsonLines, READER_FD } from './reader-channel';
const socket = new Socket({ fd: READER_FD, readable: true, writable: true });
const handlers: Array<(message: any) => void> = [];
const channel = new JsonLines(socket, { maxLineChars: 1e8, onMessage: (message) => handlers.forEach((handle) => handle(message)), onBreach: () => process.exit(1) });
const send = (message: unknown, done: () => void = () => undefined): void => channel.send(message, done);
const onTask = (handle: (task: any) => void): void => void handlers.push((message) => 'chunk' in message || handle(message));
const extracted = (text: string, title: string | null = null) => ({ text, format: 'text', mimeType: 'text/plain', title, pages: null });
socket.on('end', () => process.exit(0));
`;

// Stand-in readers speaking the reader process's protocol (extraction.worker.ts).
export const STAND_IN_READERS = {
  // Fills one array until V8's heap is full: in a process of its own, V8 then aborts that process
  // (SIGABRT), as it does on any heap exhaustion outside a worker thread.
  exhausting: `onTask((task) => {
    send({ id: task.id, started: true });
    const grow: number[] = [];
    for (;;) grow.push(grow.length);
  });`,
  // Answers with what it may see: its environment's names, what reading the service's
  // environment fails with, directly and through /proc's links to the root and the working
  // folder, and what compiling code from a string does.
  environment: `onTask((task) => {
    send({ id: task.id, started: true });
    const fs = require('node:fs');
    const tries = ['/proc/' + process.ppid + '/environ', '/proc/self/root/proc/' + process.ppid + '/environ', '/proc/self/task/' + process.pid + '/root/proc/' + process.ppid + '/environ', '/proc/self/cwd/' + require('node:path').basename(__filename), '/etc/hostname'];
    const outcomes = tries.map((path) => { try { fs.readFileSync(path); return 'read ' + path; } catch (error) { return (error as { code: string }).code; } });
    outcomes.push((() => { try { return new Function('return "compiled"')(); } catch (error) { return (error as Error).name; } })());
    send({ id: task.id, outcome: { ok: true, extracted: extracted(outcomes.join(',') + ' ' + Object.keys(process.env).join(',')) } });
  });`,
  // Dies as soon as it is handed a file.
  dying: `onTask(() => process.exit(3));`,
  // Starts a file and sends full text pieces without end.
  flooding: `onTask((task) => {
    send({ id: task.id, started: true });
    const piece = 'x'.repeat(${TEXT_PIECE_CHARS});
    const more = (): void => send({ id: task.id, text: piece }, more);
    more();
  });`,
  // Answers a file named pid.txt with its pid; starts any other and never answers.
  obedient: `onTask((task) => {
    send({ id: task.id, started: true });
    if (task.fileName === 'pid.txt') send({ id: task.id, outcome: { ok: true, extracted: extracted(String(process.pid)) } });
  });`,
  // Starts a file and spins on it, without a watchdog.
  spinning: `onTask((task) => send({ id: task.id, started: true }, () => {
    for (;;);
  }));`,
  // Says ready, then breaks the protocol in the way its file is named after.
  misbehaving: `const breaches: Record<string, (id: number) => unknown[]> = {
    null: () => [null],
    number: () => [7],
    nullText: (id) => [{ id, text: null }],
    nullOutcome: (id) => [{ id, outcome: null }],
    noExtracted: (id) => [{ id, outcome: { ok: true } }],
    arrayText: (id) => [{ id, text: ['x'.repeat(50000)] }, { id, outcome: { ok: true, extracted: extracted('') } }],
    internalError: (id) => [{ id, outcome: { ok: false, error: { code: 'internal', message: 'not the uploader', issues: [] } } }],
    elsewhere: (id) => [{ id, outcome: { ok: false, error: { code: 'validation', message: 'm', issues: [{ loc: ['constructor'], msg: 'm', type: 'value_error' }] } } }],
    longTitle: (id) => [{ id, outcome: { ok: true, extracted: extracted('', 'x'.repeat(256)) } }],
    nodeInternal: () => [{ cmd: 'NODE_HANDLE_ACK' }],
    notJson: () => {
      socket.write('{"id": 1,\\n');
      return [];
    },
    endless: () => {
      socket.write('"' + 'x'.repeat(${MAX_LINE_CHARS}));
      return [];
    },
    shortPiece: (id) => [{ id, text: 'x' }],
    otherFile: (id) => [{ id: id + 1, text: 'x' }],
    startedTwice: (id) => [{ id, started: true }],
    readyTwice: () => [{ ready: true }],
    longOutcome: (id) => [{ id, outcome: { ok: true, extracted: extracted('x'.repeat(20000)) } }],
    unstarted: (id) => [{ id, text: 'x' }],
    afterItsFile: (id) => [{ id, outcome: { ok: true, extracted: extracted('done') } }, { id, text: 'more' }],
  };
  send({ ready: true });
  onTask((task) => {
    if (task.fileName !== 'unstarted') send({ id: task.id, started: true });
    for (const message of breaches[task.fileName]?.(task.id) ?? []) send(message);
  });`,
  // Answers every file with the text of the one package it requires (from the node_modules its folder has).
  requiring: `onTask((task) => {
    send({ id: task.id, started: true });
    send({ id: task.id, outcome: { ok: true, extracted: extracted(require('lore-test-dependency')) } });
  });`,
  // Answers with its user id and what signalling the service (signal 0: a check) does.
  identity: `onTask((task) => {
    send({ id: task.id, started: true });
    let signal = 'signalled';
    try {
      process.kill(process.ppid, 0);
    } catch (error) {
      signal = (error as { code: string }).code;
    }
    send({ id: task.id, outcome: { ok: true, extracted: extracted(process.getuid?.() + ' ' + signal) } });
  });`,
  // Never starts a file.
  silent: `onTask(() => undefined);`,
  // Starts a file, says why on stderr and aborts, as a native crash would.
  crashing: `onTask((task) => {
    send({ id: task.id, started: true });
    process.stderr.write('a parser fell over\\n', () => process.abort());
  });`,
  // Starts a file and spins on it, with the reader's own watchdog.
  watched: `import { startReaderWatchdog } from './reader-watchdog';
  const watchdog = startReaderWatchdog(Number(process.argv[3]));
  onTask((task) => {
    watchdog.busy();
    send({ id: task.id, started: true }, () => {
      for (;;);
    });
  });`,
};

// A service (bundled with ExtractionProcesses) that hands its reader one file, tells its parent
// once the file is started, and then does as it is told.
const SERVICE = `
import { ExtractionProcesses } from './extraction-processes';
const readers = new ExtractionProcesses({ script: process.argv[2], maxMemoryMb: 64, timeoutMs: 60_000, onStart: () => process.send?.('started') });
void readers.run({ id: 1, fileName: 'f.txt', mimeType: null, bytes: new Uint8Array([1]), limits: {} as never }, new AbortController().signal).catch(() => undefined);
process.on('message', (command) => {
  if (command === 'exit') process.exit(0);
});
`;

// A service out of file descriptors (run under \`ulimit -n\`): no reader can be started. Prints
// why its file was refused, then whether it is still alive a moment later.
const STARVED = `
import { openSync } from 'node:fs';
import { ExtractionProcesses, ReaderEnded } from './extraction-processes';
const readers = new ExtractionProcesses({ script: process.argv[2], maxMemoryMb: 64, timeoutMs: 5_000, onStart: () => undefined });
try {
  for (;;) openSync('/dev/null', 'r');
} catch {
  // every descriptor taken
}
readers.run({ id: 1, fileName: 'f.txt', mimeType: null, bytes: new Uint8Array([1]), limits: {} as never }, new AbortController().signal).then(
  () => console.log('read'),
  (error: unknown) => console.log(error instanceof ReaderEnded ? error.reason : String(error)),
);
setTimeout(() => console.log('alive'), 500);
`;

export type StandInName = keyof typeof STAND_IN_READERS | 'service' | 'starved';

/** Bundles every script into `dir` (with the sources they import); returns each one's path. */
export async function buildStandIns(dir: string): Promise<Record<StandInName, string>> {
  const sources = [...Object.entries(STAND_IN_READERS).map(([name, source]) => [name, `${PREAMBLE}\n${source}`]), ['service', SERVICE], ['starved', STARVED]];
  const scripts = {} as Record<StandInName, string>;
  for (const [name, contents = ''] of sources) {
    const script = join(dir, `${name}.cjs`);
    await build({ stdin: { contents, loader: 'ts', resolveDir: __dirname }, bundle: true, platform: 'node', format: 'cjs', outfile: script, external: ['lore-test-dependency'], logLevel: 'silent' });
    scripts[name as StandInName] = script;
  }
  return scripts;
}
