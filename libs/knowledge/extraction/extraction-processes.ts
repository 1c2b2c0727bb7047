import { fork, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, realpathSync } from 'node:fs';
import type { Socket } from 'node:net';
import { setPriority } from 'node:os';
import { dirname, join } from 'node:path';

import { CHUNK_BYTES, readerArgs, type ExtractionOutcome, type ExtractionTask, type ProcessReply, type TaskMessage } from './reader-protocol';
import { parseReply } from './reader-replies';

/**
 * Why a reader process ended with a file: its deadline; V8 out of heap; no start within the
 * start bound; or anything else (a crash).
 */
export type ReaderEndReason = 'deadline' | 'memory' | 'unavailable' | 'crash';

export class ReaderEnded extends Error {
  constructor(
    readonly reason: ReaderEndReason,
    detail: string,
    /** The end of what the process wrote to stderr (V8's fatal errors go there). */
    readonly stderr = '',
  ) {
    super(detail);
  }
}

export interface ExtractionProcessesOptions {
  /** The bundled reader script (extraction.worker.ts), started with `fork`. */
  readonly script: string;
  /** A process's V8 old generation, in MB: past it V8 aborts that process, and only that one. */
  readonly maxMemoryMb: number;
  /** The pool's deadline per file: a reader's own watchdog ends it at twice this and a second, should the service not. */
  readonly timeoutMs: number;
  /** From handing a file to a reader to its `started` (a new process's start included); past it the file gets 'unavailable'. */
  readonly startTimeoutMs?: number;
  /** Called when a process begins a task: the pool's deadline counts from there. */
  readonly onStart: (id: number) => void;
  /** Called for every reader that ends, with or without a file (metrics and logs). */
  readonly onEnded?: (error: ReaderEnded, withFile: boolean) => void;
}

/** A new reader loads its parsers within this even on a busy machine (seen here: up to 7 s with both cores taken). */
const DEFAULT_START_TIMEOUT_MS = 15_000;
/** The end of a reader's stderr kept for the error: V8's fatal error is a few lines. */
const STDERR_TAIL_CHARS = 4096;
/** V8's words when a heap runs out (`FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory`). */
const OUT_OF_MEMORY = /heap out of memory|Reached heap limit/;

interface Job {
  readonly task: ExtractionTask;
  readonly signal: AbortSignal;
  readonly resolve: (outcome: ExtractionOutcome) => void;
  readonly reject: (error: Error) => void;
  readonly onAbort: () => void;
  reader: Reader | null;
  started: boolean;
  /** A file whose reader died before starting it is handed to one new reader, once. */
  retried: boolean;
  /** The extracted text's pieces received so far (ProcessReply), joined as a rope. */
  text: string;
  startTimer: NodeJS.Timeout | undefined;
}

interface Reader {
  /** The instance that started it (close() ends only its own). */
  readonly owner: ExtractionProcesses;
  readonly child: ChildProcess;
  job: Job | null;
  /** Set once, by whatever ends the process first: the reason its file, if any, gets. */
  ending: ReaderEnded | null;
  stderr: string;
  /** Its end has been dealt with ('close', or 'error' for a process that never started). */
  settled: boolean;
  /** V8 said on stderr that a heap ran out (the message comes first, before a long stack trace). */
  outOfMemory: boolean;
  /** It has said `ready` (once loaded; its threads were lowered then). */
  ready: boolean;
}

/**
 * Child processes that read uploaded files, one file at a time each. Processes rather than
 * worker threads: a thread that runs out of heap is meant to end alone, but for some allocation
 * patterns V8 aborts the whole process instead (nodejs/node#47224), so one workspace's file
 * could stop the service for all. A process that aborts ends only itself; its file gets 422.
 *
 * Each reader starts with an empty environment and under Node's permission model: it may read
 * only its own script's folder and the node_modules its requires resolve from (not the data
 * directory, not /proc/<service>/environ), start no process and write no file (it can still
 * open sockets and signal processes of the same user: Node's model does not cover those). Once
 * it is loaded the service lowers all its threads to nice +10. It never outlives the service: idle readers exit when the
 * channel closes, busy ones are killed from the service's `exit` and by their own watchdog
 * thread (parent gone, or one file read for too long). A file is settled only once its reader
 * has exited, so there are never more than the caller's concurrency of readers alive.
 * Readers are reused across workspaces; the caller (FairSlots) bounds how many files run at once.
 */
export class ExtractionProcesses {
  private readonly idle: Reader[] = [];
  private closed = false;

  constructor(private readonly options: ExtractionProcessesOptions) {
    this.script = realpathSync(options.script);
  }

  /** The reader script's real path: the permission model checks paths as the process resolves them. */
  private readonly script: string;

  /** Reads `task` in an idle process (or a new one); `signal` ends that process at once. */
  run(task: ExtractionTask, signal: AbortSignal): Promise<ExtractionOutcome> {
    if (this.closed) return Promise.reject(new ReaderEnded('unavailable', 'the extraction processes are closed'));
    if (signal.aborted) return Promise.reject(new ReaderEnded('deadline', 'the file reached its deadline before a reader had it'));
    return new Promise<ExtractionOutcome>((resolve, reject) => {
      const job: Job = {
        task,
        signal,
        resolve,
        reject,
        onAbort: () => {
          if (job.reader !== null) this.end(job.reader, new ReaderEnded('deadline', 'the file was still being read at its deadline'));
        },
        reader: null,
        started: false,
        retried: false,
        text: '',
        startTimer: undefined,
      };
      signal.addEventListener('abort', job.onAbort, { once: true });
      this.assign(job);
    });
  }

  /** Ends every process; files being read fail. */
  async close(): Promise<void> {
    this.closed = true;
    this.idle.length = 0;
    const exits = [...living].filter((reader) => reader.owner === this).map((reader) => {
      const exited = new Promise<void>((resolve) => reader.child.once('close', () => resolve()));
      this.end(reader, new ReaderEnded('unavailable', 'the extraction processes were closed'));
      return exited;
    });
    await Promise.all(exits);
  }

  private assign(job: Job): void {
    let reader: Reader;
    try {
      reader = this.idle.pop() ?? this.start();
    } catch (error) {
      this.detach(job);
      job.reject(new ReaderEnded('unavailable', `no reader process could be started: ${error instanceof Error ? error.message : String(error)}`));
      return;
    }
    reader.job = job;
    job.reader = reader;
    const startTimeoutMs = this.options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
    job.startTimer = setTimeout(() => this.end(reader, new ReaderEnded('unavailable', `no reader process started the file within ${startTimeoutMs} ms`)), startTimeoutMs);
    reader.child.ref();
    (reader.child.channel as { ref?: () => void } | undefined)?.ref?.();
    this.transfer(reader, job);
  }

  /**
   * The task's header, then its bytes chunk by chunk (TaskMessage), each once the one before is
   * written: the event loop turns between chunks. Bytes cross as a copy (advanced serialisation).
   */
  private transfer(reader: Reader, job: Job): void {
    // A process that could not be started has no channel (its 'error' settles the file).
    if (!reader.child.connected) return this.end(reader, new ReaderEnded('crash', 'the reader process has no channel'));
    const { bytes, ...header } = job.task;
    let sent = 0;
    const next = (error: Error | null): void => {
      if (error) return this.end(reader, new ReaderEnded('crash', `the reader process could not take the file: ${error.message}`));
      if (reader.job !== job || reader.ending !== null || sent >= bytes.length) return;
      const chunk = bytes.subarray(sent, sent + CHUNK_BYTES);
      sent += chunk.length;
      reader.child.send({ id: header.id, chunk } satisfies TaskMessage, next);
    };
    reader.child.send({ ...header, size: bytes.length } satisfies TaskMessage, next);
  }

  private start(): Reader {
    const child = fork(this.script, readerArgs(2 * this.options.timeoutMs + 1000), {
      // No eval or new Function: a parser tricked into compiling text from a file (as PDF.js
      // was, CVE-2024-4367) throws instead of running it. PDF.js then takes its slower paths.
      execArgv: [...permissionArgs(this.script), '--disallow-code-generation-from-strings', `--max-old-space-size=${this.options.maxMemoryMb}`, '--max-semi-space-size=16'],
      // Relative paths resolve inside the script's folder, which is all it may read anyway.
      cwd: dirname(this.script),
      env: {},
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    const reader: Reader = { owner: this, child, job: null, ending: null, stderr: '', settled: false, outOfMemory: false, ready: false };
    // First: a process that could not be started (EMFILE, EAGAIN) emits 'error' and has no stdio.
    child.on('error', (error) => {
      this.end(reader, new ReaderEnded('crash', `the reader process failed: ${error.message}`));
      if (child.pid === undefined) this.settle(reader);
    });
    living.add(reader);
    killOnExit();
    // A pipe of a child process is a socket (it can be unref'd).
    const stderr = child.stderr as Socket | null;
    stderr?.setEncoding('utf8');
    stderr?.on('data', (text: string) => {
      // Tested across the chunk boundary too: the message may arrive split.
      reader.outOfMemory ||= OUT_OF_MEMORY.test(reader.stderr.slice(-64) + text);
      reader.stderr = (reader.stderr + text).slice(-STDERR_TAIL_CHARS);
    });
    // The pipe never keeps the service alive; the process and its channel are ref'd while busy.
    stderr?.unref();
    child.on('message', (message: unknown) => this.receive(reader, message));
    child.on('close', (code, signal) => {
      // V8 aborts (SIGABRT) when a heap runs out, and says so on stderr first.
      const reason = reader.outOfMemory ? 'memory' : 'crash';
      reader.ending ??= new ReaderEnded(reason, `the reader process ended (${signal ?? `code ${code}`})`);
      this.settle(reader);
    });
    return reader;
  }

  /**
   * A reader's message. One it should not send (malformed, a second `ready`, anything while it
   * has no file or for another file, text before `started` or past the text limit) ends it: a
   * reader that breaks the protocol has a parser doing what it should not.
   */
  private receive(reader: Reader, message: unknown): void {
    // Once its end is decided, whatever it had already sent is moot.
    if (reader.ending !== null || reader.settled) return;
    let breach: string | null;
    try {
      const reply = parseReply(message);
      breach = reply === null ? 'a malformed message' : this.reply(reader, reply);
    } catch (error) {
      breach = `a message the service could not take (${error instanceof Error ? error.message : String(error)})`;
    }
    if (breach !== null) this.end(reader, new ReaderEnded('crash', `the reader process sent ${breach}`));
  }

  /** Acts on a well-formed reply; returns what was wrong with it at this point, if anything. */
  private reply(reader: Reader, reply: ProcessReply): string | null {
    if ('ready' in reply) {
      if (reader.ready) return 'ready twice';
      reader.ready = true;
      lowerPriority(reader.child);
      return null;
    }
    const job = reader.job;
    if (job === null) return 'a message while it had no file';
    if (reply.id !== job.task.id) return 'a message for another file';
    if ('started' in reply) {
      if (job.started) return 'started twice';
      clearTimeout(job.startTimer);
      job.started = true;
      this.options.onStart(job.task.id);
      return null;
    }
    if (!job.started) return 'a result before starting its file';
    const { maxTextChars } = job.task.limits;
    if ('text' in reply) {
      // A reader keeps to the text limit; text past it would soon outgrow what a string can hold here.
      if (job.text.length + reply.text.length > maxTextChars) return 'more text than KNOWLEDGE_EXTRACT_MAX_TEXT_CHARS';
      job.text += reply.text;
      return null;
    }
    if ('outcome' in reply && reply.outcome.ok) {
      const { text, title } = reply.outcome.extracted;
      if (job.text.length + text.length > maxTextChars || (title?.length ?? 0) > maxTextChars) return 'more text than KNOWLEDGE_EXTRACT_MAX_TEXT_CHARS';
    }
    this.detach(job);
    reader.job = null;
    reader.child.unref();
    (reader.child.channel as { unref?: () => void } | undefined)?.unref?.();
    if (!this.closed) this.idle.push(reader);
    if (!('outcome' in reply)) {
      job.reject(new Error(reply.failure));
      return null;
    }
    const { outcome } = reply;
    job.resolve(outcome.ok ? { ok: true, extracted: { ...outcome.extracted, text: job.text + outcome.extracted.text } } : outcome);
    return null;
  }

  /** Ends `reader` for `error` (the first reason given wins); its file is settled once the process has exited. */
  private end(reader: Reader, error: ReaderEnded): void {
    if (reader.ending !== null) return;
    reader.ending = error;
    this.unidle(reader);
    kill(reader);
  }

  /** The process has exited: its file, if any, fails with the reason it ended, or goes to a new reader. */
  private settle(reader: Reader): void {
    if (reader.settled) return;
    reader.settled = true;
    living.delete(reader);
    this.unidle(reader);
    const ending = reader.ending ?? new ReaderEnded('crash', 'the reader process ended');
    const job = reader.job;
    reader.job = null;
    this.options.onEnded?.(new ReaderEnded(ending.reason, ending.message, reader.stderr), job !== null);
    if (job === null) return;
    job.reader = null;
    clearTimeout(job.startTimer);
    // Not the file's doing when its reader died before starting it (an idle reader's death
    // racing the hand-over): one new reader gets it, and a second such death is 'unavailable'.
    const beforeStart = ending.reason === 'crash' && !job.started;
    if (beforeStart && !job.retried && !this.closed && !job.signal.aborted) {
      job.retried = true;
      this.assign(job);
      return;
    }
    this.detach(job);
    job.reject(new ReaderEnded(beforeStart ? 'unavailable' : ending.reason, ending.message, reader.stderr));
  }

  private unidle(reader: Reader): void {
    const at = this.idle.indexOf(reader);
    if (at >= 0) this.idle.splice(at, 1);
  }

  private detach(job: Job): void {
    clearTimeout(job.startTimer);
    job.signal.removeEventListener('abort', job.onAbort);
  }
}

/**
 * A loaded reader's threads to nice +10 (on Linux a thread's id is a pid for setpriority), from
 * the service, which may list them: the service's request thread gets the CPU first, the
 * reader's V8 compiler and GC helpers and its watchdog included; threads it starts later inherit
 * it. Once loaded, not from the fork on: at low priority on a busy machine, starting a
 * replacement reader took seconds, all of it counted against the file that waited for it.
 */
function lowerPriority(child: ChildProcess): void {
  const { pid } = child;
  if (pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    for (const thread of readdirSync(`/proc/${pid}/task`)) setPriority(Number(thread), 10);
  } catch {
    // not Linux, gone already, or not permitted here (some containers): it runs at the service's priority
  }
}

/**
 * SIGKILL to a reader that is running. Never to one that could not be started: Node keeps the
 * handle of a spawn that failed with EMFILE, and its kill then signals pid 0, the service's
 * whole process group (seen here: the service and the shell that started it were killed).
 */
function kill(reader: Reader): void {
  const { child } = reader;
  if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

/**
 * Every reader alive in this process (each knows the instance that started it): killed when the process
 * exits, whatever the path to the exit (a busy reader would otherwise read on until its watchdog
 * notices; an idle one leaves with the channel).
 */
const living = new Set<Reader>();
let exitHooked = false;
function killOnExit(): void {
  if (exitHooked) return;
  exitHooked = true;
  process.on('exit', () => {
    for (const reader of living) kill(reader);
  });
}

/**
 * Node's permission model for a reader: read access to its script's folder and to the
 * node_modules folders its requires resolve from (its folder's and each parent's); no writes,
 * no child processes; a thread only for its watchdog. Nothing under /proc: Node checks a path as
 * written, so a grant of /proc/self/task would reach every file through its threads' `root` and
 * `cwd` links. The flag is `--permission` from Node 22.13 and `--experimental-permission` before.
 */
function permissionArgs(script: string): string[] {
  const flag = process.allowedNodeEnvironmentFlags.has('--permission') ? '--permission' : '--experimental-permission';
  const readable = [dirname(script)];
  for (let dir = dirname(script); ; dir = dirname(dir)) {
    // Made real too: a node_modules that is a symbolic link (a shared install) is read through its target.
    if (existsSync(join(dir, 'node_modules'))) readable.push(realpathSync(join(dir, 'node_modules')));
    if (dirname(dir) === dir) break;
  }
  return [flag, '--allow-worker', ...readable.map((path) => `--allow-fs-read=${path}`)];
}
