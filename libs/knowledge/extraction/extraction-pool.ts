import { Piscina } from 'piscina';

import { AppError, workerScript } from '@lore/platform/kernel';

import type { ExtractedText, UploadedFile } from './extract-text';
import { limitExceeded, type ExtractionLimits } from './extraction-limits';
import type { ExtractionOutcome, ExtractionTask, TaskStarted } from './extraction.worker';

import { FairSlots } from './fair-slots';

/** What the pool needs to know of a file besides its bytes. */
export interface FileToExtract {
  /** The name the user gave it: its extension chooses the reader, and errors quote it. */
  readonly fileName: string;
  /** As declared by whoever supplied the file; consulted when the name has no known extension. */
  readonly mimeType?: string | null;
  /** Whose turn it takes in FairSlots. */
  readonly workspaceId: string;
}

export interface ExtractionPoolOptions {
  /** Worker threads (KNOWLEDGE_EXTRACT_WORKERS). */
  readonly workers: number;
  /** Files waiting beyond those being read (KNOWLEDGE_EXTRACT_QUEUE); more are refused with 503. */
  readonly queue: number;
  /** Files of one workspace being read or waiting (KNOWLEDGE_EXTRACT_PER_WORKSPACE); more are refused with 429. */
  readonly perWorkspace: number;
  /** Per file, from when a worker starts it (KNOWLEDGE_EXTRACT_TIMEOUT_MS); a file waits for a worker at most twice this. */
  readonly timeoutMs: number;
  /** A worker's V8 old generation (KNOWLEDGE_EXTRACT_MAX_MEMORY_MB). */
  readonly maxMemoryMb: number;
  readonly limits: ExtractionLimits;
}

/**
 * Reads uploaded files in worker threads (Piscina), never on the event loop that answers
 * requests: a file that takes long or needs much memory slows down only the thread it is on.
 * Each thread has a heap limit (a file that needs more ends its thread: 422); each file has a
 * wall-clock deadline once a thread has it (the thread is then terminated and replaced: 422);
 * the threads yield the CPU to the request thread (nice +10). At most `workers` files are read
 * at once; the others wait in `FairSlots`, in turns across workspaces rather than in
 * Piscina's one first-come-first-served queue, where one workspace's burst of slow files made
 * every other workspace's uploads wait behind all of them or find the queue full (503). A
 * workspace may have `perWorkspace` files in here at once (more: 429); a file waits at most
 * 2 × `timeoutMs` for a thread (then 503), and a file arriving at a full queue is refused at once
 * (503) rather than held in memory. The
 * threads start with the first upload and then stay (idle ones never keep the process alive):
 * Piscina replaces a terminated thread only up to `minThreads`, so with fewer the files
 * queued behind a terminated one would wait for the next upload to start a thread.
 */
export class ExtractionPool {
  private pool: Piscina<ExtractionTask, ExtractionOutcome> | undefined;
  private readonly onStart = new Map<number, () => void>();
  private nextId = 1;
  private readonly slots: FairSlots;

  private static readonly sharedPools = new Map<string, ExtractionPool>();

  constructor(private readonly options: ExtractionPoolOptions) {
    // Twice a file's own time: a file behind one that just started still gets its turn when that
    // one is ended at its deadline, rather than a 503 in a race with it.
    const maxWaitMs = 2 * options.timeoutMs;
    this.slots = new FairSlots({ slots: options.workers, perWorkspace: options.perWorkspace, queue: options.queue, maxWaitMs });
  }

  /**
   * One pool per process for a configuration: the gateway's routes (and any caller in the
   * knowledge service) take theirs from here, so a process that builds its routes more than once
   * (tests; a restarted app) does not keep a set of idle threads per build. Routes have no
   * shutdown hook; the threads end with the process.
   */
  static shared(options: ExtractionPoolOptions): ExtractionPool {
    const key = JSON.stringify(options);
    let pool = ExtractionPool.sharedPools.get(key);
    if (pool === undefined) {
      pool = new ExtractionPool(options);
      ExtractionPool.sharedPools.set(key, pool);
    }
    return pool;
  }

  /**
   * The text of `bytes`, a file of `workspaceId` named `fileName`, read in a thread once it is
   * that workspace's turn. The bytes are moved there when the array owns its memory (see
   * `movable`): the caller must not use them after. Rejects with a validation AppError located
   * at FILE_FIELD for a file that cannot be read or is over a limit, and with 429 or 503
   * (FairSlots) when the workspace or the pool is at capacity.
   */
  async extract(bytes: Uint8Array, file: FileToExtract): Promise<ExtractedText> {
    const release = await this.slots.acquire(file.workspaceId);
    try {
      return await this.read({ fileName: file.fileName, mimeType: file.mimeType ?? null, bytes });
    } finally {
      release();
    }
  }

  private async read(file: UploadedFile): Promise<ExtractedText> {
    const pool = await this.ensurePool();
    const { timeoutMs, maxMemoryMb } = this.options;
    const id = this.nextId++;
    const abort = new AbortController();
    let deadline: NodeJS.Timeout | undefined;
    this.onStart.set(id, () => {
      deadline = setTimeout(() => abort.abort(), timeoutMs);
    });
    const task: ExtractionTask = { id, fileName: file.fileName, mimeType: file.mimeType ?? null, bytes: file.bytes, limits: this.options.limits };
    let outcome: ExtractionOutcome;
    try {
      outcome = await pool.run(task, { signal: abort.signal, transferList: movable(file.bytes) });
    } catch (error) {
      if (abort.signal.aborted) throw limitExceeded(file.fileName, `took longer than ${timeoutMs} ms to read`, 'timeoutMs');
      if ((error as { code?: unknown }).code === 'ERR_WORKER_OUT_OF_MEMORY') {
        throw limitExceeded(file.fileName, `needs more than ${maxMemoryMb} MB of memory to read`, 'maxMemoryMb');
      }
      throw error;
    } finally {
      clearTimeout(deadline);
      this.onStart.delete(id);
    }
    if (!outcome.ok) throw AppError.from(outcome.error);
    return outcome.extracted;
  }

  /** Ends the threads; files being read fail. */
  async close(): Promise<void> {
    const pool = this.pool;
    this.pool = undefined;
    await pool?.destroy();
  }

  private async ensurePool(): Promise<Piscina<ExtractionTask, ExtractionOutcome>> {
    if (this.pool !== undefined) return this.pool;
    const filename = await workerScript('extraction-worker');
    if (this.pool !== undefined) return this.pool; // another caller made it meanwhile
    const { workers, maxMemoryMb } = this.options;
    const pool = new Piscina<ExtractionTask, ExtractionOutcome>({
      filename,
      minThreads: workers,
      maxThreads: workers,
      // FairSlots lets at most `workers` files in, so Piscina queues only a file whose thread is
      // being replaced (after a deadline or an out-of-memory end).
      maxQueue: workers,
      concurrentTasksPerWorker: 1,
      // The threads run at a lower priority (Linux nice +10, per thread): on a busy machine the
      // thread that answers requests gets the CPU first and a long extraction waits instead.
      niceIncrement: 10,
      resourceLimits: { maxOldGenerationSizeMb: maxMemoryMb, maxYoungGenerationSizeMb: 32 },
    });
    pool.on('message', (message: Partial<TaskStarted>) => {
      if (typeof message.started === 'number') this.onStart.get(message.started)?.();
    });
    // A thread that dies between tasks (or is terminated at a deadline) has already failed the
    // task it ran, if any; Piscina replaces it. Without a listener the event would crash the process.
    pool.on('error', () => undefined);
    this.pool = pool;
    return pool;
  }
}

/**
 * The file's memory, when the file alone owns it: moved to the thread instead of copied.
 * Uploads arrive as Buffers of their own (Buffer.concat of the parts), so a 10 MB upload is
 * not copied a second time and its copy not collected by this thread's GC (external memory
 * drives V8's collections: copies of uploads were most of this thread's GC time under load).
 * A view into a larger or shared buffer (Node's pool for small Buffers) is copied as usual.
 */
function movable(bytes: Uint8Array): ArrayBuffer[] {
  const { buffer } = bytes;
  const whole = bytes.byteOffset === 0 && bytes.byteLength === buffer.byteLength && bytes.byteLength > 0;
  return whole && Object.prototype.toString.call(buffer) === '[object ArrayBuffer]' ? [buffer as ArrayBuffer] : [];
}
