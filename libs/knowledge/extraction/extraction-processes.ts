import { fork, type ChildProcess } from 'node:child_process';

import type { ExtractionOutcome, ExtractionTask, ProcessReply } from './extraction.worker';

/** How a reader's process ended when it ended with a task: by its deadline, by V8 running out of heap, or otherwise. */
export class ReaderEnded extends Error {
  constructor(readonly reason: 'deadline' | 'memory' | 'crash', detail: string) {
    super(detail);
  }
}

interface Busy {
  readonly id: number;
  readonly resolve: (outcome: ExtractionOutcome) => void;
  readonly reject: (error: Error) => void;
}

interface Reader {
  readonly child: ChildProcess;
  busy: Busy | null;
}

export interface ExtractionProcessesOptions {
  /** The bundled worker script (extraction.worker.ts), started with `fork`. */
  readonly script: string;
  /** A process's V8 old generation, in MB: past it V8 aborts that process, and only that one. */
  readonly maxMemoryMb: number;
  /** Called when a process begins a task: the pool's deadline counts from there. */
  readonly onStart: (id: number) => void;
}

/**
 * Child processes that read uploaded files, one file at a time each. Processes rather than
 * worker threads: a thread that runs out of heap is meant to end alone, but for some allocation
 * patterns V8 aborts the whole process instead (nodejs/node#47224), so one workspace's file
 * could stop the service for all. A process that aborts ends only itself; its file gets 422.
 * Each starts without the service's environment variables (the same user, though: not a
 * sandbox), lowers its main thread to nice +10 once loaded (V8's helper threads stay at normal
 * priority), and exits when its parent disconnects, once it is not in the middle of a file.
 * The caller (FairSlots) bounds how many tasks run at once; idle processes are kept for the
 * next file and never keep the service's process alive.
 */
export class ExtractionProcesses {
  private readonly idle: Reader[] = [];
  private readonly all = new Set<Reader>();
  private closed = false;

  constructor(private readonly options: ExtractionProcessesOptions) {}

  /** Reads `task` in an idle process (or a new one); `signal` ends that process at once. */
  run(task: ExtractionTask, signal: AbortSignal): Promise<ExtractionOutcome> {
    if (this.closed) return Promise.reject(new Error('the extraction processes are closed'));
    const reader = this.idle.pop() ?? this.start();
    return new Promise<ExtractionOutcome>((resolve, reject) => {
      const onAbort = (): void => this.ended(reader, new ReaderEnded('deadline', 'the file was still being read at its deadline'));
      reader.busy = {
        id: task.id,
        resolve: (outcome) => {
          signal.removeEventListener('abort', onAbort);
          resolve(outcome);
        },
        reject: (error) => {
          signal.removeEventListener('abort', onAbort);
          reject(error);
        },
      };
      signal.addEventListener('abort', onAbort, { once: true });
      reader.child.ref();
      (reader.child.channel as { ref?: () => void } | undefined)?.ref?.();
      // Bytes cross as a copy (advanced serialisation); the parent's are dropped with the request.
      reader.child.send(task, (error) => {
        if (error) this.ended(reader, new ReaderEnded('crash', `the reader process could not take the file: ${error.message}`));
      });
    });
  }

  /** Ends every process; files being read fail. */
  async close(): Promise<void> {
    this.closed = true;
    const exits = [...this.all].map((reader) => new Promise<void>((resolve) => {
      if (reader.child.exitCode !== null || reader.child.signalCode !== null) return resolve();
      reader.child.once('exit', () => resolve());
      reader.child.kill('SIGKILL');
    }));
    await Promise.all(exits);
  }

  private start(): Reader {
    const child = fork(this.options.script, [], {
      execArgv: [`--max-old-space-size=${this.options.maxMemoryMb}`, '--max-semi-space-size=16'],
      env: {},
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
    });
    const reader: Reader = { child, busy: null };
    this.all.add(reader);
    child.on('message', (reply: ProcessReply) => this.reply(reader, reply));
    child.on('error', (error) => this.ended(reader, new ReaderEnded('crash', `the reader process failed: ${error.message}`)));
    child.on('exit', (code, signal) => {
      // V8 aborts (SIGABRT) when a heap runs out: the one abort a reader is expected to meet.
      const reason = signal === 'SIGABRT' || code === 134 ? 'memory' : 'crash';
      this.ended(reader, new ReaderEnded(reason, `the reader process ended (${signal ?? `code ${code}`})`));
    });
    return reader;
  }

  private reply(reader: Reader, reply: ProcessReply): void {
    const busy = reader.busy;
    if (busy === null || reply.id !== busy.id) return;
    if ('started' in reply) {
      this.options.onStart(busy.id);
      return;
    }
    reader.busy = null;
    this.rest(reader);
    if ('outcome' in reply) busy.resolve(reply.outcome);
    else busy.reject(new Error(reply.failure));
  }

  /** A process gone (or going): its file, if any, fails with `error`; the next file starts a new one. */
  private ended(reader: Reader, error: ReaderEnded): void {
    const busy = reader.busy;
    reader.busy = null;
    this.retire(reader);
    busy?.reject(error);
  }

  private retire(reader: Reader): void {
    this.all.delete(reader);
    const at = this.idle.indexOf(reader);
    if (at >= 0) this.idle.splice(at, 1);
    if (reader.child.exitCode === null && reader.child.signalCode === null) reader.child.kill('SIGKILL');
  }

  /** Idle: kept for the next file, without keeping the service's process alive. */
  private rest(reader: Reader): void {
    reader.child.unref();
    (reader.child.channel as { unref?: () => void } | undefined)?.unref?.();
    if (!this.closed) this.idle.push(reader);
  }
}
