import { join } from 'node:path';

import { build } from 'esbuild';

import { MAX_PIECE_LINE_CHARS, MAX_REPLY_LINE_CHARS, TEXT_PIECE_CHARS } from './reader-protocol';

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
const channel = new JsonLines(socket, { maxStringLineChars: 1e8, maxOtherLineChars: 1e8, onMessage: (message) => handlers.forEach((handle) => handle(message)), onBreach: () => process.exit(1) });
const send = (message: unknown, done: () => void = () => undefined): void => channel.send(message, done);
const onTask = (handle: (task: any) => void): void => void handlers.push((message) => 'chunk' in message || handle(message));
const facts = (title: string | null = null) => ({ format: 'text', mimeType: 'text/plain', title, pages: null });
const outcome = (id: number, title: string | null = null) => ({ id, outcome: { ok: true, extracted: facts(title) } });
// A short text as the real reader sends it: one (last) piece, then the outcome.
const answer = (id: number, text: string): void => {
  send(text);
  send(outcome(id));
};
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
    answer(task.id, outcomes.join(',') + ' ' + Object.keys(process.env).join(','));
  });`,
  // Dies as soon as it is handed a file.
  dying: `onTask(() => process.exit(3));`,
  // Starts a file and sends full text pieces without end.
  flooding: `onTask((task) => {
    send({ id: task.id, started: true });
    const piece = 'x'.repeat(${TEXT_PIECE_CHARS});
    const more = (): void => send(piece, more);
    more();
  });`,
  // Answers a file named pid.txt with its pid; starts any other and never answers.
  obedient: `onTask((task) => {
    send({ id: task.id, started: true });
    if (task.fileName === 'pid.txt') answer(task.id, String(process.pid));
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
    arrayText: (id) => [['x'.repeat(50000)], outcome(id)],
    internalError: (id) => [{ id, outcome: { ok: false, error: { code: 'internal', message: 'not the uploader', issues: [] } } }],
    elsewhere: (id) => [{ id, outcome: { ok: false, error: { code: 'validation', message: 'm', issues: [{ loc: ['constructor'], msg: 'm', type: 'value_error' }] } } }],
    longTitle: (id) => ['x', outcome(id, 'x'.repeat(256))],
    extraKey: (id) => [{ id, outcome: { ok: true, extracted: { ...facts(), text: 'x' } } }],
    nodeInternal: () => [{ cmd: 'NODE_HANDLE_ACK' }],
    notJson: () => {
      socket.write('{"id": 1,\\n');
      return [];
    },
    nested: () => {
      socket.write('['.repeat(${MAX_REPLY_LINE_CHARS}) + ']'.repeat(${MAX_REPLY_LINE_CHARS}) + '\\n');
      return [];
    },
    endless: () => {
      socket.write('"' + 'x'.repeat(${MAX_PIECE_LINE_CHARS}));
      return [];
    },
    longPiece: () => ['x'.repeat(${TEXT_PIECE_CHARS + 1})],
    afterLastPiece: () => ['x', 'y'],
    otherFile: (id) => ['x', outcome(id + 1)],
    startedTwice: (id) => [{ id, started: true }],
    readyTwice: () => [{ ready: true }],
    tooMuchText: () => ['x'.repeat(${TEXT_PIECE_CHARS})],
    unstarted: () => ['x'],
    afterItsFile: (id) => ['done', outcome(id), 'more'],
  };
  send({ ready: true });
  onTask((task) => {
    if (task.fileName !== 'unstarted') send({ id: task.id, started: true });
    for (const message of breaches[task.fileName]?.(task.id) ?? []) send(message);
  });`,
  // Answers every file with the text of the one package it requires (from the node_modules its folder has).
  requiring: `onTask((task) => {
    send({ id: task.id, started: true });
    answer(task.id, require('lore-test-dependency'));
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
    answer(task.id, process.getuid?.() + ' ' + signal);
  });`,
  // Answers a file with its pid, then closes its end of the channel and lives on.
  closing: `onTask((task) => {
    send({ id: task.id, started: true });
    answer(task.id, String(process.pid));
    // Not the exit the preamble sets up when the service closes its end in turn.
    socket.removeAllListeners('end');
    socket.end();
    setInterval(() => undefined, 1000);
  });`,
  // Answers a file with its pid, then writes to stderr without end.
  noisy: `onTask((task) => {
    send({ id: task.id, started: true });
    answer(task.id, String(process.pid));
    const line = 'noise '.repeat(10000);
    setInterval(() => process.stderr.write(line), 1);
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

// A service that reads one file and then has nothing to do: it should exit by itself, its idle
// reader neither keeping it alive nor outliving it.
const FINISHING = `
import { ExtractionProcesses } from './extraction-processes';
const readers = new ExtractionProcesses({ script: process.argv[2], maxMemoryMb: 64, timeoutMs: 5_000, onStart: () => undefined });
void readers.run({ id: 1, fileName: 'pid.txt', mimeType: null, bytes: new Uint8Array([1]), limits: {} as never }, new AbortController().signal).then((outcome) => console.log(outcome.ok ? outcome.extracted.text : 'failed'));
`;

export type StandInName = keyof typeof STAND_IN_READERS | 'service' | 'starved' | 'finishing';

/** Bundles every script into `dir` (with the sources they import); returns each one's path. */
export async function buildStandIns(dir: string): Promise<Record<StandInName, string>> {
  const sources = [...Object.entries(STAND_IN_READERS).map(([name, source]) => [name, `${PREAMBLE}\n${source}`]), ['service', SERVICE], ['starved', STARVED], ['finishing', FINISHING]];
  const scripts = {} as Record<StandInName, string>;
  for (const [name, contents = ''] of sources) {
    const script = join(dir, `${name}.cjs`);
    await build({ stdin: { contents, loader: 'ts', resolveDir: __dirname }, bundle: true, platform: 'node', format: 'cjs', outfile: script, external: ['lore-test-dependency'], logLevel: 'silent' });
    scripts[name as StandInName] = script;
  }
  return scripts;
}
