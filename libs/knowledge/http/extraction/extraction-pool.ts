import { Piscina } from 'piscina';

import { AppError, unavailable } from '@lore/platform/kernel';

import type { ExtractedText, UploadedFile } from './extract-text';
import { limitExceeded, type ExtractionLimits } from './extraction-limits';
import type { ExtractionOutcome, ExtractionTask, TaskStarted } from './extraction.worker';
import { extractionWorkerScript } from './extraction-worker-script';

export interface ExtractionPoolOptions {
  /** Worker threads (KNOWLEDGE_EXTRACT_WORKERS). */
  readonly workers: number;
  /** Files waiting beyond those being read (KNOWLEDGE_EXTRACT_QUEUE); more are refused with 503. */
  readonly queue: number;
  /** Per file, from when a worker starts it (KNOWLEDGE_EXTRACT_TIMEOUT_MS). */
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
 * the threads yield the CPU to the request thread (nice +10); at most `workers` files are read
 * at once and `queue` wait, first come first served, and a
 * file arriving at a full queue is refused at once (503) rather than held in memory. The
 * threads start with the first upload and then stay (idle ones never keep the process alive):
 * Piscina replaces a terminated thread only up to `minThreads`, so with fewer the files
 * queued behind a terminated one would wait for the next upload to start a thread.
 */
export class ExtractionPool {
  private pool: Piscina<ExtractionTask, ExtractionOutcome> | undefined;
  private readonly onStart = new Map<number, () => void>();
  private nextId = 1;

  private static readonly sharedPools = new Map<string, ExtractionPool>();

  constructor(private readonly options: ExtractionPoolOptions) {}

  /**
   * One pool per process for a configuration: the gateway's routes take theirs from here, so a
   * process that builds its routes more than once (tests; a restarted app) does not keep a set
   * of idle threads per build. Routes have no shutdown hook; the threads end with the process.
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

  /** Reads `file` in a thread. Its bytes are moved there when it owns them (see `movable`): the caller must not use them after. */
  async extract(file: UploadedFile): Promise<ExtractedText> {
    const pool = await this.ensurePool();
    if (pool.queueSize >= this.options.queue) throw busy();
    const { timeoutMs, maxMemoryMb } = this.options;
    const id = this.nextId++;
    const abort = new AbortController();
    let deadline: NodeJS.Timeout | undefined;
    this.onStart.set(id, () => {
      deadline = setTimeout(() => abort.abort(), timeoutMs);
    });
    const task: ExtractionTask = { id, filename: file.filename, mimeType: file.mimeType ?? null, bytes: file.bytes, limits: this.options.limits };
    let outcome: ExtractionOutcome;
    try {
      outcome = await pool.run(task, { signal: abort.signal, transferList: movable(file.bytes) });
    } catch (error) {
      if (abort.signal.aborted) throw limitExceeded(file.filename, `took longer than ${timeoutMs} ms to read`, 'timeoutMs');
      if ((error as { code?: unknown }).code === 'ERR_WORKER_OUT_OF_MEMORY') {
        throw limitExceeded(file.filename, `needs more than ${maxMemoryMb} MB of memory to read`, 'maxMemoryMb');
      }
      if (error instanceof Error && /queue is at limit|no task queue/i.test(error.message)) throw busy();
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
    const filename = await extractionWorkerScript();
    if (this.pool !== undefined) return this.pool; // another caller made it meanwhile
    const { workers, queue, maxMemoryMb } = this.options;
    const pool = new Piscina<ExtractionTask, ExtractionOutcome>({
      filename,
      minThreads: workers,
      maxThreads: workers,
      maxQueue: queue,
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

function busy(): AppError {
  return unavailable('Too many uploaded files are being read right now (KNOWLEDGE_EXTRACT_QUEUE); try again shortly');
}
