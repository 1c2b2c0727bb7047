import { Worker } from 'node:worker_threads';
import { AppError, workerScript } from '@lore/platform/kernel';
import type { JsonBodyReading } from './json-body-reading';

export interface JsonBodyRequest {
  readonly id: number;
  readonly bytes: Uint8Array;
}

export type JsonBodyReply = { readonly id: number; readonly reading: JsonBodyReading } | { readonly id: number; readonly failure: string };

/** Large bodies waiting for the reader at most (each is held in memory meanwhile); beyond, 503. */
const MAX_WAITING = 16;

/**
 * Large JSON bodies read on a thread of their own (json-body.worker.ts), one at a time in the
 * order they came: a 19 MB body was ~0.35 s of decoding, checking and parsing on the event loop
 * every request shares. Started on first use; it keeps the process alive only while a body
 * waits. If it fails, what waits answers 503 and the next body starts a new one.
 */
export class JsonBodyThread {
  private worker: Worker | null = null;
  private readonly waiting = new Map<number, (reply: JsonBodyReply | Error) => void>();
  private nextId = 0;
  private script: Promise<string> | null = null;
  private closed = false;

  async read(bytes: Buffer): Promise<JsonBodyReading> {
    if (this.closed) throw new AppError('unavailable', 'the gateway is closing', [], [], 1);
    if (this.waiting.size >= MAX_WAITING) throw busy();
    const id = this.nextId++;
    const replied = new Promise<JsonBodyReply | Error>((resolve) => this.waiting.set(id, resolve));
    try {
      const worker = await this.started();
      if (this.waiting.size === 1) worker.ref();
      worker.postMessage({ id, bytes } satisfies JsonBodyRequest);
    } catch (error) {
      this.settle(id, error instanceof Error ? error : new Error(String(error)));
    }
    const reply = await replied;
    if (reply instanceof Error) throw new AppError('unavailable', `the JSON body could not be read: ${reply.message}`, [], [], 1);
    if ('failure' in reply) throw new Error(`reading the JSON body failed: ${reply.failure}`);
    return reply.reading;
  }

  async close(): Promise<void> {
    this.closed = true;
    const worker = this.worker;
    this.worker = null;
    for (const id of [...this.waiting.keys()]) this.settle(id, new Error('the gateway is closing'));
    await worker?.terminate();
  }

  private async started(): Promise<Worker> {
    if (this.worker !== null) return this.worker;
    const script = await (this.script ??= workerScript('json-body-reader'));
    if (this.worker !== null) return this.worker;
    if (this.closed) throw new Error('the gateway is closing');
    const worker = new Worker(script);
    worker.unref();
    worker.on('message', (reply: JsonBodyReply) => this.settle(reply.id, reply));
    worker.on('error', (error) => this.fail(worker, error));
    // A reply that cannot be deserialised names no body: every body waiting fails rather than wait for ever.
    worker.on('messageerror', (error) => this.fail(worker, error));
    worker.on('exit', (code) => this.fail(worker, new Error(`the JSON body reader exited (code ${code})`)));
    this.worker = worker;
    return worker;
  }

  private settle(id: number, reply: JsonBodyReply | Error): void {
    const resolve = this.waiting.get(id);
    if (resolve === undefined) return;
    this.waiting.delete(id);
    if (this.waiting.size === 0) this.worker?.unref();
    resolve(reply);
  }

  /** The thread is gone: what waits on it fails, and the next body starts a new one. */
  private fail(worker: Worker, cause: Error): void {
    if (this.worker !== worker) return;
    this.worker = null;
    for (const id of [...this.waiting.keys()]) this.settle(id, cause);
  }
}

function busy(): AppError {
  return new AppError('unavailable', 'Too many large JSON bodies are being read; retry shortly', [], [], 1);
}
