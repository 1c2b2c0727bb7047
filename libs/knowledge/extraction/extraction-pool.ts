import { AppError, workerScript } from '@lore/platform/kernel';

import type { ExtractedText, UploadedFile } from './extract-text';
import { limitExceeded, type ExtractionLimits } from './extraction-limits';
import { ExtractionProcesses, ReaderEnded } from './extraction-processes';
import type { ExtractionOutcome, ExtractionTask } from './extraction.worker';

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
  /** Reader processes (KNOWLEDGE_EXTRACT_WORKERS). */
  readonly workers: number;
  /** Files waiting beyond those being read (KNOWLEDGE_EXTRACT_QUEUE); more are refused with 503. */
  readonly queue: number;
  /** Files of one workspace being read or waiting (KNOWLEDGE_EXTRACT_PER_WORKSPACE); more are refused with 429. */
  readonly perWorkspace: number;
  /** Per file, from when a worker starts it (KNOWLEDGE_EXTRACT_TIMEOUT_MS); a file waits for a worker at most twice this. */
  readonly timeoutMs: number;
  /** A reader process's V8 old generation (KNOWLEDGE_EXTRACT_MAX_MEMORY_MB). */
  readonly maxMemoryMb: number;
  readonly limits: ExtractionLimits;
}

/**
 * Reads uploaded files in child processes (ExtractionProcesses), never on the event loop that
 * answers requests: a file that takes long or needs much memory slows down only the process it
 * is in. Each process has a heap limit (a file that needs more ends its process: 422); each file
 * has a wall-clock deadline once a process has it (the process is then killed and replaced:
 * 422); the processes yield the CPU to the request thread (nice +10). At most `workers` files
 * are read at once; the others wait in `FairSlots`, in turns across workspaces rather than first
 * come first served, where one workspace's burst of slow files made every other workspace's
 * uploads wait behind all of them or find the queue full (503). A workspace may have
 * `perWorkspace` files in here at once (more: 429); a file waits at most 2 × `timeoutMs` for a
 * process (then 503), and a file arriving at a full queue is refused at once (503) rather than
 * held in memory. The processes start with the first uploads and then stay (idle ones never
 * keep the service's process alive).
 */
export class ExtractionPool {
  private processes: Promise<ExtractionProcesses> | undefined;
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
   * (tests; a restarted app) does not keep a set of idle readers per build. Routes have no
   * shutdown hook; the readers end with the process.
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
   * The text of `bytes`, a file of `workspaceId` named `fileName`, read in a reader process once
   * it is that workspace's turn (the bytes are copied there). Rejects with a validation AppError located
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
    const processes = await this.ensureProcesses();
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
      outcome = await processes.run(task, abort.signal);
    } catch (error) {
      if (abort.signal.aborted) throw limitExceeded(file.fileName, `took longer than ${timeoutMs} ms to read`, 'timeoutMs');
      if (error instanceof ReaderEnded && error.reason === 'memory') {
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

  /** Ends the processes; files being read fail. */
  async close(): Promise<void> {
    const processes = this.processes;
    this.processes = undefined;
    await (await processes?.catch(() => undefined))?.close();
  }

  private ensureProcesses(): Promise<ExtractionProcesses> {
    if (this.processes !== undefined) return this.processes;
    const created = workerScript('extraction-worker').then(
      (script) => new ExtractionProcesses({ script, maxMemoryMb: this.options.maxMemoryMb, onStart: (id) => this.onStart.get(id)?.() }),
    );
    // A failed lookup of the script is tried again by the next file.
    created.catch(() => {
      if (this.processes === created) this.processes = undefined;
    });
    this.processes = created;
    return created;
  }
}
