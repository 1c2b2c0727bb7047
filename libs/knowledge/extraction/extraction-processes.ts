import type { ChildProcess } from 'node:child_process';
import type { Socket } from 'node:net';

import { JsonLines, READER_FD } from './reader-channel';
import { CHUNK_BYTES, MAX_PIECE_LINE_CHARS, MAX_REPLY_LINE_CHARS, TEXT_PIECE_CHARS, type ExtractionOutcome, type ExtractionTask, type ProcessReply, type TaskMessage } from './reader-protocol';
import { parseReply } from './reader-replies';
import { killReader, lowerPriority, readerCommand, spawnReader, type ReaderCommand, type ReaderUser } from './reader-spawn';

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
  /** The bundled reader script (extraction.worker.ts), started with `spawn`. */
  readonly script: string;
  /** A process's V8 old generation, in MB: past it V8 aborts that process, and only that one. */
  readonly maxMemoryMb: number;
  /** The pool's deadline per file: a reader's own watchdog ends it at twice this and a second, should the service not. */
  readonly timeoutMs: number;
  /** The user and group readers run as (the service must be root); null or absent: the service's own. */
  readonly runAs?: ReaderUser | null;
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
/** All a reader may write to stderr: Node's warnings and V8's fatal error with its stack are a few KB. */
const STDERR_MAX_CHARS = 1024 * 1024;
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
  /** A piece shorter than TEXT_PIECE_CHARS came: the last one. */
  lastPiece: boolean;
  startTimer: NodeJS.Timeout | undefined;
}

interface Reader {
  /** The instance that started it (close() ends only its own). */
  readonly owner: ExtractionProcesses;
  readonly child: ChildProcess;
  /** The pipe at its fd 3, and the channel over it; null for a process that could not be started. */
  readonly socket: Socket | null;
  channel: JsonLines | null;
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
  /** Its end of the channel is closed: it can take no file. */
  channelEnded: boolean;
  /** Characters it has written to stderr; past STDERR_MAX_CHARS it is ended. */
  stderrChars: number;
}

/**
 * Child processes that read uploaded files, one file at a time each. Processes rather than
 * worker threads: a thread that runs out of heap is meant to end alone, but for some allocation
 * patterns V8 aborts the whole process instead (nodejs/node#47224), so one workspace's file
 * could stop the service for all. A process that aborts ends only itself; its file gets 422.
 *
 * Each reader starts with an empty environment and under Node's permission model: it may read
 * only its own script's folder and the node_modules its requires resolve from (not the data
 * directory, not /proc/<service>/environ), start no process, write no file and compile no code
 * from strings (it can still open sockets and signal processes of the same user: Node's model
 * does not cover those). It talks to the service over a pipe of its own (JsonLines), whose
 * every message the service checks (reader-replies.ts). Once it is loaded the service lowers
 * all its threads to nice +10. It never outlives the service: idle readers exit when the
 * channel closes, busy ones are killed from the service's `exit` and by their own watchdog
 * thread (parent gone, or one file read for too long). A file is settled only once its reader
 * has exited, so there are never more than the caller's concurrency of readers alive.
 * Readers are reused across workspaces; the caller (FairSlots) bounds how many files run at once.
 */
export class ExtractionProcesses {
  private readonly idle: Reader[] = [];
  private closed = false;

  constructor(private readonly options: ExtractionProcessesOptions) {
    this.command = readerCommand(options.script, { maxMemoryMb: options.maxMemoryMb, hardLimitMs: 2 * options.timeoutMs + 1000, runAs: options.runAs ?? null });
  }

  private readonly command: ReaderCommand;

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
        lastPiece: false,
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
    reader.socket?.ref();
    this.transfer(reader, job);
  }

  /**
   * The task's header, then its bytes chunk by chunk (TaskMessage, base64), each once the one
   * before is written: the event loop turns between chunks.
   */
  private transfer(reader: Reader, job: Job): void {
    // A process that could not be started has no channel (its 'error' settles the file).
    const channel = reader.channel;
    if (channel === null) return this.end(reader, new ReaderEnded('crash', 'the reader process has no channel'));
    const { bytes, ...header } = job.task;
    let sent = 0;
    const next = (error?: Error | null): void => {
      if (error) return this.end(reader, new ReaderEnded('crash', `the reader process could not take the file: ${error.message}`));
      if (reader.job !== job || reader.ending !== null || sent >= bytes.length) return;
      const chunk = Buffer.from(bytes.buffer, bytes.byteOffset + sent, Math.min(CHUNK_BYTES, bytes.length - sent));
      sent += chunk.length;
      channel.send({ id: header.id, chunk: chunk.toString('base64') } satisfies TaskMessage, next);
    };
    channel.send({ ...header, size: bytes.length } satisfies TaskMessage, next);
  }

  private start(): Reader {
    const child = spawnReader(this.command);
    // Pipes of a child process are sockets (they can be unref'd). A process that could not be
    // started (EMFILE) has no stdio at all, whatever the types say.
    const socket = ((child.stdio as ChildProcess['stdio'] | undefined)?.[READER_FD] as Socket | null | undefined) ?? null;
    const reader: Reader = { owner: this, child, socket, channel: null, job: null, ending: null, stderr: '', settled: false, outOfMemory: false, ready: false, channelEnded: false, stderrChars: 0 };
    // First, before anything that could throw: a process that could not be started (EMFILE,
    // EAGAIN) emits 'error' on the next tick, and without a listener that ends the service.
    child.on('error', (error) => {
      this.end(reader, new ReaderEnded('crash', `the reader process failed: ${error.message}`));
      if (child.pid === undefined) this.settle(reader);
    });
    if (socket !== null && child.pid !== undefined) {
      reader.channel = new JsonLines(socket, {
        maxStringLineChars: MAX_PIECE_LINE_CHARS,
        maxOtherLineChars: MAX_REPLY_LINE_CHARS,
        onMessage: (message) => this.receive(reader, message),
        onBreach: (what) => this.end(reader, new ReaderEnded('crash', `the reader process sent ${what}`)),
      });
      // A write to a reader that has died fails (EPIPE): its end is dealt with on 'close'.
      socket.on('error', () => undefined);
      // A reader that closes its channel while alive can take no file: it is ended (not as a
      // breach: a reader that died closes it too, and its end says why, memory for one).
      socket.on('end', () => {
        reader.channelEnded = true;
        this.unidle(reader);
        killReader(child);
      });
      socket.unref();
    }
    living.add(reader);
    killOnExit();
    const stderr = child.stderr as Socket | null;
    stderr?.setEncoding('utf8');
    stderr?.on('data', (text: string) => {
      // Tested across the chunk boundary too: the message may arrive split.
      reader.outOfMemory ||= OUT_OF_MEMORY.test(reader.stderr.slice(-64) + text);
      reader.stderr = (reader.stderr + text).slice(-STDERR_TAIL_CHARS);
      // Reading it costs this thread: a reader writing without end is ended.
      reader.stderrChars += text.length;
      if (reader.stderrChars > STDERR_MAX_CHARS) this.end(reader, new ReaderEnded('crash', `the reader process wrote more than ${STDERR_MAX_CHARS} characters to stderr`));
    });
    // The pipes never keep the service alive; the process and its channel are ref'd while busy.
    stderr?.unref();
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
    if (typeof reply !== 'string' && 'ready' in reply) {
      if (reader.ready) return 'ready twice';
      reader.ready = true;
      lowerPriority(reader.child);
      return null;
    }
    const job = reader.job;
    if (job === null) return 'a message while it had no file';
    if (typeof reply === 'string') return this.piece(job, reply);
    if (reply.id !== job.task.id) return 'a message for another file';
    if ('started' in reply) {
      if (job.started) return 'started twice';
      clearTimeout(job.startTimer);
      job.started = true;
      this.options.onStart(job.task.id);
      return null;
    }
    if (!job.started) return 'a result before starting its file';
    this.detach(job);
    reader.job = null;
    reader.child.unref();
    reader.socket?.unref();
    if (!this.closed && !reader.channelEnded) this.idle.push(reader);
    if (!('outcome' in reply)) {
      job.reject(new Error(reply.failure));
      return null;
    }
    const { outcome } = reply;
    job.resolve(outcome.ok ? { ok: true, extracted: { ...outcome.extracted, text: job.text } } : outcome);
    return null;
  }

  /** A piece of the file's text: whole (TEXT_PIECE_CHARS) but the last, which only the outcome may follow. */
  private piece(job: Job, text: string): string | null {
    if (!job.started) return 'a result before starting its file';
    // A flood of short pieces would keep this thread busy for nothing.
    if (job.lastPiece) return 'text after its last piece';
    if (text.length > TEXT_PIECE_CHARS) return `a text piece over ${TEXT_PIECE_CHARS} characters`;
    // A reader keeps to the text limit; text past it would soon outgrow what a string can hold here.
    if (job.text.length + text.length > job.task.limits.maxTextChars) return 'more text than KNOWLEDGE_EXTRACT_MAX_TEXT_CHARS';
    job.lastPiece = text.length < TEXT_PIECE_CHARS;
    job.text += text;
    return null;
  }

  /** Ends `reader` for `error` (the first reason given wins); its file is settled once the process has exited. */
  private end(reader: Reader, error: ReaderEnded): void {
    if (reader.ending !== null) return;
    reader.ending = error;
    this.unidle(reader);
    killReader(reader.child);
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
    for (const reader of living) killReader(reader.child);
  });
}
