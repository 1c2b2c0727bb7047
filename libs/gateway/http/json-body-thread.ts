import { Worker } from 'node:worker_threads';
import { AppError, FAIR_SLOTS_RETRY_AFTER_SECONDS, FairSlots, workerScript, type FairSlotsRefusals } from '@lore/platform/kernel';
import { largeJsonBodies } from '@lore/platform/telemetry';
import type { JsonBodyReading } from './json-body-reading';

export interface JsonBodyRequest {
  readonly id: number;
  readonly bytes: Uint8Array;
}

export type JsonBodyReply = { readonly id: number; readonly reading: JsonBodyReading } | { readonly id: number; readonly failure: string };

/** How many large bodies may wait for the reader (each is held in memory meanwhile), of all workspaces and of one. */
export interface JsonBodyQueueLimits {
  /** Bodies waiting, of every workspace together; more are refused with 503. */
  readonly queue: number;
  /** Bodies of one workspace being read or waiting; more are refused with 429 (its own bodies are in the way). */
  readonly perWorkspace: number;
  /** The longest a body waits for its turn (then 503, or 429 when its own workspace's bodies held the reader). */
  readonly maxWaitMs: number;
}

/** A 19 MB body takes ~0.35 s to read: 16 waiting is ~6 s of work, and one workspace may have 4 of them in. */
export const JSON_BODY_QUEUE: JsonBodyQueueLimits = { queue: 16, perWorkspace: 4, maxWaitMs: 5_000 };

const REFUSALS: FairSlotsRefusals = {
  workspaceFull: (perWorkspace) => `This workspace has ${perWorkspace} large JSON bodies (1 MiB or more) being read or waiting, its limit; retry after ${FAIR_SLOTS_RETRY_AFTER_SECONDS} s`,
  queueFull: () => 'Too many large JSON bodies are being read right now; try again shortly',
  waitedBehindOwn: (maxWaitMs) => `This workspace's other large JSON bodies held the body reader for more than ${maxWaitMs} ms; retry after ${FAIR_SLOTS_RETRY_AFTER_SECONDS} s`,
  waitedTooLong: (maxWaitMs) => `The JSON body waited more than ${maxWaitMs} ms for the body reader; try again shortly`,
};

/**
 * Large JSON bodies read on a thread of their own (json-body.worker.ts), one at a time: a 19 MB
 * body was ~0.35 s of decoding, checking and parsing on the event loop every request shares.
 * Bodies take turns by workspace (FairSlots), not first come first served: one workspace
 * sending large bodies back to back made every other workspace's large body wait behind all
 * of them, or find the queue full. Started on first use; it keeps the process alive only while
 * a body waits. If it fails, what waits answers 503 and the next body starts a new one.
 */
export class JsonBodyThread {
  private worker: Worker | null = null;
  private readonly waiting = new Map<number, (reply: JsonBodyReply | Error) => void>();
  private nextId = 0;
  private script: Promise<string> | null = null;
  private closed = false;
  private readonly turns: FairSlots;

  constructor(limits: JsonBodyQueueLimits = JSON_BODY_QUEUE) {
    this.turns = new FairSlots({ slots: 1, ...limits, refusals: REFUSALS });
  }

  /**
   * The body read in `workspace`'s turn (a workspace id, or another key for callers without one);
   * `signal`: its client went away, and it leaves the queue.
   */
  async read(bytes: Buffer, workspace: string, signal?: AbortSignal): Promise<JsonBodyReading> {
    if (this.closed) throw closing();
    let release: () => void;
    try {
      release = await this.turns.acquire(workspace, signal);
    } catch (error) {
      largeJsonBodies.inc({ outcome: 'refused' });
      throw error;
    }
    try {
      const reading = await this.readNow(bytes);
      largeJsonBodies.inc({ outcome: reading.ok ? 'ok' : 'invalid' });
      return reading;
    } catch (error) {
      largeJsonBodies.inc({ outcome: error instanceof AppError ? 'unavailable' : 'failed' });
      throw error;
    } finally {
      release();
    }
  }

  private async readNow(bytes: Buffer): Promise<JsonBodyReading> {
    if (this.closed) throw closing();
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

function closing(): AppError {
  return new AppError('unavailable', 'the gateway is closing', [], [], 1);
}
