import { Worker } from 'node:worker_threads';
import { AppError, workerScript } from '@lore/platform/kernel';
import type { AppendOutcome, AppendRequest } from './sqlite-append-writer';
import { fromWireError, fromWireOutcome, type DeletionStep, type WireOutcome, type WriterReply, type WriterRequest } from './append-writer.protocol';

interface Waiting {
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

/** A store's connection on the writer thread: the thread and the store's handle there. */
type OpenedStore = { readonly thread: AppendWriterThread; readonly handle: number };

/**
 * One store's writes on the process's writer thread, through a connection of its own. When the
 * thread has failed (it exited, or could not start), what was waiting failed as unavailable and
 * the next write opens the store again on a new thread: the file is intact (a commit cut short
 * rolls back), so the store recovers by itself rather than staying down until a restart.
 */
export class ThreadedAppendWriter {
  private opened: Promise<OpenedStore>;
  /** The store on a live thread, once open: a write takes it without waiting on a promise. */
  private ready: OpenedStore | null = null;

  constructor(private readonly path: string) {
    this.opened = this.open();
  }

  append(batch: readonly AppendRequest[], recordedAt: string): Promise<AppendOutcome[]> {
    const ready = this.ready;
    if (ready !== null && !ready.thread.failed) return ready.thread.append(ready.handle, batch, recordedAt);
    return this.current().then(({ thread, handle }) => thread.append(handle, batch, recordedAt));
  }

  /** One step of a stream's deletion (see sqlite-stream-deletion.ts) on the writer thread, after what was queued before it. */
  async deletionStep(step: DeletionStep): Promise<unknown> {
    const { thread, handle } = await this.current();
    return thread.deletionStep(handle, step);
  }

  async close(): Promise<void> {
    await this.opened.then(({ thread, handle }) => thread.close(handle), () => undefined);
  }

  private current(): Promise<OpenedStore> {
    if (this.ready !== null && !this.ready.thread.failed) return Promise.resolve(this.ready);
    this.ready = null;
    this.opened = this.opened.then(
      (opened) => (opened.thread.failed ? this.open() : opened),
      () => this.open(),
    );
    return this.opened;
  }

  private open(): Promise<OpenedStore> {
    const opened = AppendWriterThread.open(this.path);
    void opened.then(
      (store) => (this.ready = store),
      // A failed start fails the write that waits for it; nothing is left unhandled meanwhile.
      () => undefined,
    );
    return opened;
  }
}

/**
 * The main thread's side of the event store's writer thread (append-writer.worker.ts): one
 * thread per process, shared by the event store files open in it, started with the first and
 * ended with the last. While nothing waits on it, it does not keep the process alive.
 */
export class AppendWriterThread {
  private static shared: AppendWriterThread | null = null;

  /** The process's writer thread, with a connection of its own to `path` for one store: the store's `handle`. */
  static async open(path: string): Promise<OpenedStore> {
    const thread = (AppendWriterThread.shared ??= new AppendWriterThread());
    const handle = AppendWriterThread.nextHandle++;
    thread.handles.add(handle);
    await thread.call({ op: 'open', handle, path });
    return { thread, handle };
  }

  private static nextHandle = 0;

  private readonly worker: Promise<Worker>;
  private readonly handles = new Set<number>();
  private readonly waiting = new Map<number, Waiting>();
  private nextId = 0;
  private failure: Error | null = null;
  /** The thread, once started: referenced (keeping the process alive) only while a call waits. */
  private started: Worker | null = null;

  /** Whether the thread is gone (exited or failed to start): its stores open again on a new one. */
  get failed(): boolean {
    return this.failure !== null;
  }

  private constructor() {
    this.worker = workerScript('event-store-writer').then((script) => {
      const worker = new Worker(script);
      worker.unref();
      this.started = worker;
      worker.on('message', (reply: WriterReply) => this.settle(reply));
      worker.on('error', (error) => this.fail(error));
      worker.on('exit', (code) => this.fail(new Error(`the event store's writer thread exited (code ${code})`)));
      return worker;
    });
    // A failed start fails every call with its cause; the stores then open again on a new thread.
    this.worker.catch((error: unknown) => this.fail(error instanceof Error ? error : new Error(String(error))));
  }

  append(handle: number, batch: readonly AppendRequest[], recordedAt: string): Promise<AppendOutcome[]> {
    // Only what the writer reads crosses: not the callers' resolve and reject.
    const requests = batch.map(({ streamId, events, expected }) => ({ streamId, events, expected }));
    return this.call({ op: 'append', handle, batch: requests, recordedAt }).then((outcomes) => (outcomes as WireOutcome[]).map(fromWireOutcome));
  }

  deletionStep(handle: number, step: DeletionStep): Promise<unknown> {
    return this.call({ ...step, handle });
  }

  /** Closes the store's connection; the thread ends with the last one. */
  async close(handle: number): Promise<void> {
    if (!this.handles.delete(handle)) return;
    await this.call({ op: 'close', handle }).catch(() => undefined);
    if (this.handles.size > 0) return;
    await this.terminate();
  }

  /** Ends the thread: what waits on it fails as unavailable, and its stores open again on a new thread. */
  async terminate(): Promise<void> {
    if (AppendWriterThread.shared === this) AppendWriterThread.shared = null;
    const worker = await this.worker.catch(() => null);
    await worker?.terminate();
  }

  private async call(request: WriterRequest): Promise<unknown> {
    if (this.failure !== null) throw this.failure;
    const worker = await this.worker;
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      if (this.waiting.size === 0) worker.ref();
      this.waiting.set(id, { resolve, reject });
      worker.postMessage({ id, request });
    });
  }

  private settle(reply: WriterReply): void {
    const waiting = this.waiting.get(reply.id);
    if (waiting === undefined) return;
    this.waiting.delete(reply.id);
    if (this.waiting.size === 0) this.started?.unref();
    if (reply.ok) waiting.resolve(reply.value);
    else waiting.reject(fromWireError(reply.error));
  }

  /** The thread is gone: what waits fails, and so does every later call (the store reports unavailable). */
  private fail(cause: Error): void {
    if (this.failure !== null) return;
    this.failure = new AppError('unavailable', `event store writer failed: ${cause.message}`);
    // Not silent: stores open again on a new thread, but an operator should know one went.
    if (this.handles.size > 0) process.emitWarning(this.failure.message);
    if (AppendWriterThread.shared === this) AppendWriterThread.shared = null;
    for (const waiting of this.waiting.values()) waiting.reject(this.failure);
    this.waiting.clear();
  }
}
