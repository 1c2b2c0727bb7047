import { Worker } from 'node:worker_threads';
import { AppError, workerScript } from '@lore/platform/kernel';
import type { AppendOutcome, AppendRequest } from './sqlite-append-writer';
import { fromWireError, fromWireOutcome, type WireOutcome, type WriterReply, type WriterRequest } from './append-writer.protocol';

interface Waiting {
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * The main thread's side of the event store's writer thread (append-writer.worker.ts): one
 * thread per process, shared by the event store files open in it, started with the first and
 * ended with the last. While nothing waits on it, it does not keep the process alive.
 */
export class AppendWriterThread {
  private static shared: AppendWriterThread | null = null;

  /** The process's writer thread, with a connection of its own to `path` for one store: the store's `handle`. */
  static async open(path: string): Promise<{ readonly thread: AppendWriterThread; readonly handle: number }> {
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
    // A failed start fails every call with its cause; nothing is left unhandled meanwhile.
    this.worker.catch(() => undefined);
  }

  append(handle: number, batch: readonly AppendRequest[], recordedAt: string): Promise<AppendOutcome[]> {
    // Only what the writer reads crosses: not the callers' resolve and reject.
    const requests = batch.map(({ streamId, events, expected }) => ({ streamId, events, expected }));
    return this.call({ op: 'append', handle, batch: requests, recordedAt }).then((outcomes) => (outcomes as WireOutcome[]).map(fromWireOutcome));
  }

  async deleteStream(handle: number, streamId: string, deletedAt: string): Promise<void> {
    await this.call({ op: 'delete', handle, streamId, deletedAt });
  }

  /** Closes the store's connection; the thread ends with the last one. */
  async close(handle: number): Promise<void> {
    if (!this.handles.delete(handle)) return;
    await this.call({ op: 'close', handle }).catch(() => undefined);
    if (this.handles.size > 0) return;
    if (AppendWriterThread.shared === this) AppendWriterThread.shared = null;
    await (await this.worker).terminate();
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
    if (AppendWriterThread.shared === this) AppendWriterThread.shared = null;
    for (const waiting of this.waiting.values()) waiting.reject(this.failure);
    this.waiting.clear();
  }
}
