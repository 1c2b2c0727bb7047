import { AppError, FAIR_SLOTS_RETRY_AFTER_SECONDS, FairSlots, invalid, unavailable, workerScript, type FairSlotsRefusals } from '@lore/platform/kernel';
import { extractionFiles, extractionReadersEnded } from '@lore/platform/telemetry';

import { extracted, type ExtractedText } from './extracted-text';
import { detectFormat, FILE_FIELD, type FileFormat, type UploadedFile } from './file-format';
import { decodeUtf8 } from './utf8-text';
import { limitExceeded, type ExtractionLimits } from './extraction-limits';
import { ExtractionProcesses, ReaderEnded } from './extraction-processes';
import type { ExtractionOutcome, ExtractionTask } from './reader-protocol';
import type { ReaderUser } from './reader-spawn';

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
  /** Per file, from when a reader starts it (KNOWLEDGE_EXTRACT_TIMEOUT_MS); a file waits for a reader at most twice this. */
  readonly timeoutMs: number;
  /** A reader process's V8 old generation (KNOWLEDGE_EXTRACT_MAX_MEMORY_MB). */
  readonly maxMemoryMb: number;
  /** The user and group reader processes run as (KNOWLEDGE_EXTRACT_UID, _GID); absent or null: the service's. */
  readonly runAs?: ReaderUser | null;
  readonly limits: ExtractionLimits;
}

/** What an upload refused by the pool's FairSlots is told, naming the setting that bounds it. */
const UPLOAD_REFUSALS: FairSlotsRefusals = {
  workspaceFull: (perWorkspace) =>
    `This workspace has ${perWorkspace} uploaded file(s) being read or waiting, its limit (KNOWLEDGE_EXTRACT_PER_WORKSPACE); retry after ${FAIR_SLOTS_RETRY_AFTER_SECONDS} s`,
  queueFull: () => 'Too many uploaded files are being read right now (KNOWLEDGE_EXTRACT_QUEUE); try again shortly',
  waitedBehindOwn: (maxWaitMs) => `This workspace's other files held its share of the file readers for more than ${maxWaitMs} ms; retry after ${FAIR_SLOTS_RETRY_AFTER_SECONDS} s`,
  waitedTooLong: (maxWaitMs) => `The uploaded file waited more than ${maxWaitMs} ms for a free file reader (2 × KNOWLEDGE_EXTRACT_TIMEOUT_MS); try again shortly`,
};

/** Where a reader's unexpected end is told (the process's logger). */
export interface ExtractionLog {
  warn(details: Record<string, unknown>, message: string): void;
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
  private closed = false;
  private readonly slots: FairSlots;

  private static readonly sharedPools = new Map<string, ExtractionPool>();

  constructor(
    private readonly options: ExtractionPoolOptions,
    private readonly log?: ExtractionLog,
  ) {
    // Twice a file's own time: a file behind one that just started still gets its turn when that
    // one is ended at its deadline, rather than a 503 in a race with it.
    const maxWaitMs = 2 * options.timeoutMs;
    this.slots = new FairSlots({ slots: options.workers, perWorkspace: options.perWorkspace, queue: options.queue, maxWaitMs, refusals: UPLOAD_REFUSALS });
  }

  /**
   * One pool per process for a configuration: the gateway's routes and the knowledge service
   * (re-extraction) take theirs from here, so a process that builds its routes more than once
   * (tests; a restarted app) does not keep a set of idle readers per build, and the standalone
   * process shares one set between both. The first caller's `log` is the pool's. Routes have no
   * shutdown hook; the readers end with the process (ExtractionProcesses).
   */
  static shared(options: ExtractionPoolOptions, log?: ExtractionLog): ExtractionPool {
    const key = JSON.stringify(options);
    let pool = ExtractionPool.sharedPools.get(key);
    if (pool === undefined) {
      pool = new ExtractionPool(options, log);
      ExtractionPool.sharedPools.set(key, pool);
    }
    return pool;
  }

  /**
   * The text of `bytes`, a file of `workspaceId` named `fileName`, read in a reader process once
   * it is that workspace's turn (the bytes are copied there). Rejects with a validation AppError
   * located at FILE_FIELD for a file that cannot be read, is over a limit or ends its reader,
   * and with 429 or 503 (FairSlots) when the workspace or the pool is at capacity, or 503 when
   * no reader could take it.
   */
  async extract(bytes: Uint8Array, file: FileToExtract): Promise<ExtractedText> {
    // Counted as 'unavailable', like a file no reader could take: both are 503s to try again.
    const shuttingDown = (): AppError => {
      extractionFiles.inc({ outcome: 'unavailable' });
      return unavailable('File extraction is shutting down; try again shortly');
    };
    if (this.closed) throw shuttingDown();
    const inline = readsInline(bytes, file);
    if (inline !== null) return countedInline(() => extracted(inline, { text: decodeUtf8(bytes, file.fileName) }, file.fileName, this.options.limits));
    let release: () => void;
    try {
      release = await this.slots.acquire(file.workspaceId);
    } catch (error) {
      extractionFiles.inc({ outcome: 'refused' });
      throw error;
    }
    try {
      // A file that waited for its turn while the pool closed starts no reader.
      if (this.closed) throw shuttingDown();
      const extracted = await this.read({ fileName: file.fileName, mimeType: file.mimeType ?? null, bytes }, file.workspaceId);
      extractionFiles.inc({ outcome: 'ok' });
      return extracted;
    } finally {
      release();
    }
  }

  private async read(file: UploadedFile, workspaceId: string): Promise<ExtractedText> {
    const processes = await this.ensureProcesses();
    const id = this.nextId++;
    const abort = new AbortController();
    let deadline: NodeJS.Timeout | undefined;
    this.onStart.set(id, () => {
      deadline = setTimeout(() => abort.abort(), this.options.timeoutMs);
    });
    const task: ExtractionTask = { id, fileName: file.fileName, mimeType: file.mimeType ?? null, bytes: file.bytes, limits: this.options.limits };
    let outcome: ExtractionOutcome;
    try {
      outcome = await processes.run(task, abort.signal);
    } catch (error) {
      throw this.refusal(file.fileName, error, workspaceId);
    } finally {
      clearTimeout(deadline);
      this.onStart.delete(id);
    }
    if (!outcome.ok) {
      extractionFiles.inc({ outcome: 'unreadable' });
      throw AppError.from(outcome.error);
    }
    return outcome.extracted;
  }

  /** The error a file gets when its reader ended with it (counted by why), or a reader's own bug. */
  private refusal(fileName: string, error: unknown, workspaceId: string): Error {
    if (!(error instanceof ReaderEnded)) {
      extractionFiles.inc({ outcome: 'failed' });
      return error instanceof Error ? error : new Error(String(error));
    }
    extractionFiles.inc({ outcome: error.reason });
    if (error.reason === 'crash' || error.reason === 'unavailable') {
      this.log?.warn({ workspaceId, reason: error.reason, stderr: error.stderr.slice(-1024) }, `extraction reader ended: ${error.message}`);
    }
    const { timeoutMs, maxMemoryMb } = this.options;
    switch (error.reason) {
      case 'deadline':
        return limitExceeded(fileName, `took longer than ${timeoutMs} ms to read`, 'timeoutMs');
      case 'memory':
        return limitExceeded(fileName, `needs more than ${maxMemoryMb} MB of memory to read`, 'maxMemoryMb');
      case 'crash':
        // The file was the one input of the process that died reading it.
        return invalid(FILE_FIELD, `"${fileName}" could not be read: its reader process ended while reading it`);
      case 'unavailable':
        return unavailable('No file reader process could take the uploaded file; try again shortly');
    }
  }

  /** Ends the processes; files being read fail, and later files are refused (503). */
  async close(): Promise<void> {
    this.closed = true;
    const processes = this.processes;
    this.processes = undefined;
    await (await processes?.catch(() => undefined))?.close();
  }

  private ensureProcesses(): Promise<ExtractionProcesses> {
    if (this.processes !== undefined) return this.processes;
    const { maxMemoryMb, timeoutMs, runAs } = this.options;
    const created = workerScript('extraction-worker').then(
      (script) =>
        new ExtractionProcesses({
          script,
          maxMemoryMb,
          timeoutMs,
          runAs: runAs ?? null,
          onStart: (id) => this.onStart.get(id)?.(),
          onEnded: (ended, withFile) => extractionReadersEnded.inc({ reason: ended.reason, with_file: String(withFile) }),
        }),
    );
    // A failed lookup of the script is tried again by the next file.
    created.catch(() => {
      if (this.processes === created) this.processes = undefined;
    });
    this.processes = created;
    return created;
  }
}

/**
 * Small plain text and markdown files are read on the calling thread, in no reader's queue:
 * decoding UTF-8 is one bounded pass (no parser a hostile file could make work hard), so a
 * tiny note never waits behind another workspace's slow PDFs. Null for any other file.
 */
export const INLINE_TEXT_BYTES = 256 * 1024;

function readsInline(bytes: Uint8Array, file: FileToExtract): 'text' | 'markdown' | null {
  if (bytes.length > INLINE_TEXT_BYTES) return null;
  let format: FileFormat;
  try {
    format = detectFormat({ fileName: file.fileName, mimeType: file.mimeType ?? null, bytes });
  } catch {
    return null; // refused by a reader, with the same error, counted as the reader counts it
  }
  return format === 'text' || format === 'markdown' ? format : null;
}

function countedInline(read: () => ExtractedText): ExtractedText {
  try {
    const text = read();
    extractionFiles.inc({ outcome: 'ok' });
    return text;
  } catch (error) {
    extractionFiles.inc({ outcome: 'unreadable' });
    throw error;
  }
}
