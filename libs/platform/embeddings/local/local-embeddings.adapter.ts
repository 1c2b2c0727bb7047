import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { AppError } from '@lore/platform/kernel';
import { EmbeddingBatcher, EmbeddingUnavailableError } from '@lore/platform/embeddings/port';
import type { EmbeddingProvider, EmbeddingProviderInfo, Tokenization } from '@lore/platform/embeddings/port';
import { EMBEDDING_WORKER_SOURCE } from './embedding-worker.source';
import type { LocalEmbeddingOptions } from './local-embedding-options';
import { DEFAULT_REMOTE_HOST, modelFiles, resolveModel, type LocalDtype, type ModelSource } from '@lore/platform/embeddings/port';

export const DEFAULT_LOCAL_MODEL = 'Xenova/all-MiniLM-L6-v2';

/** Models whose vector size and sequence length need not be configured. */
const KNOWN_MODELS: Readonly<Record<string, { readonly dimensions: number; readonly maxSequenceLength: number }>> = {
  // sentence-transformers reads 256 tokens (max_seq_length), not the tokenizer's 512.
  'Xenova/all-MiniLM-L6-v2': { dimensions: 384, maxSequenceLength: 256 },
};

/** The workers' nice value on Linux: requests on the main thread go first (see the worker source). */
const WORKER_NICE = 5;

/** [CLS] and [SEP]: the worker refuses a tokenizer that adds any other number. */
const SPECIAL_TOKENS = 2;

export interface LocalEmbeddingStats {
  /** Messages of texts sent to the worker. */
  readonly batches: number;
  readonly texts: number;
  /** Worker threads started (more than one after a crash or a failed load). */
  readonly workerStarts: number;
  /** Where the model was loaded from, once it was. */
  readonly source: ModelSource | undefined;
}

interface PendingRequest {
  readonly worker: Worker;
  resolve(result: unknown): void;
  reject(error: unknown): void;
}

type WorkerMessage =
  | { type: 'ready' }
  | { type: 'load-failed'; message: string }
  | { type: 'result'; id: number; result: unknown }
  | { type: 'error'; id: number; message: string };

interface WorkerTokenization {
  count: number;
  starts: Uint32Array;
  ends: Uint32Array;
}

/**
 * all-MiniLM-L6-v2 (or another BERT-family ONNX model) through @huggingface/transformers in a
 * worker thread, so that embedding never blocks the event loop. The worker starts on the first
 * call and loads the model from MODELS_DIR, the cache under DATA_DIR or the hub; a missing model
 * fails the calls (with a message naming MODELS_DIR), never the construction. A crashed worker
 * fails the calls it was serving with `unavailable` and is restarted by the next call.
 */
export class LocalEmbeddingProvider implements EmbeddingProvider {
  readonly info: EmbeddingProviderInfo;
  private readonly model: string;
  private readonly dtype: LocalDtype;
  private readonly maxSequenceLength: number;
  private readonly batcher: EmbeddingBatcher;
  private readonly pending = new Map<number, PendingRequest>();
  private readonly maxWorkers: number;
  /** Started workers and the requests each has in flight. */
  private readonly workers = new Map<Worker, number>();
  private workerSource: ModelSource | undefined;
  private loaded: ModelSource | undefined;
  private loadFailure: { readonly error: EmbeddingUnavailableError; readonly at: number } | undefined;
  /** The hub being asked, before the first worker starts, whether it can be reached; then that worker. */
  private probing: Promise<Worker> | undefined;
  /** Aborts the hub's probe when the provider closes: nothing outlives close(). */
  private readonly closing = new AbortController();
  private closed = false;
  private nextId = 1;
  private counters = { batches: 0, texts: 0, workerStarts: 0 };

  constructor(private readonly options: LocalEmbeddingOptions = {}) {
    this.model = options.model ?? DEFAULT_LOCAL_MODEL;
    this.dtype = options.dtype ?? 'q8';
    const known = KNOWN_MODELS[this.model];
    const dimensions = options.dimensions ?? known?.dimensions;
    const maxSequenceLength = options.maxSequenceLength ?? known?.maxSequenceLength;
    if (dimensions === undefined || maxSequenceLength === undefined) {
      throw new AppError('internal', `local embedding model ${this.model}: configure its dimensions and maxSequenceLength`);
    }
    if (maxSequenceLength <= SPECIAL_TOKENS) {
      throw new AppError('internal', `local embedding model ${this.model}: maxSequenceLength must exceed ${SPECIAL_TOKENS}`);
    }
    this.maxSequenceLength = maxSequenceLength;
    this.maxWorkers = Math.max(1, options.workers ?? (options.threads !== undefined ? 1 : Math.min(availableParallelism(), 4)));
    this.info = {
      provider: 'local',
      model: this.model,
      dimensions,
      distance: 'cosine',
      maxInputTokens: maxSequenceLength - SPECIAL_TOKENS,
      tokenizer: 'exact',
    };
    this.batcher = new EmbeddingBatcher({
      maxBatchSize: options.batchSize ?? Math.max(1, options.inferenceBatchSize ?? 1),
      // Two batches in flight per worker: a worker runs them one after the other, and the
      // second one waiting in its queue keeps the model busy while the first's vectors travel
      // back (with one, a CPU profile of ingestion showed the model idle a quarter of the time).
      // A query arriving meanwhile waits for at most two small batches instead of a queue of them.
      maxConcurrency: 2 * this.maxWorkers,
      embed: (texts) => this.embedBatch(texts),
    });
  }

  embedDocuments(texts: readonly string[]): Promise<Float32Array[]> {
    return this.batcher.submit(texts, 'documents');
  }

  embedQuery(text: string): Promise<Float32Array> {
    return this.batcher.submitQuery(text);
  }

  async tokenize(texts: readonly string[]): Promise<Tokenization[]> {
    if (texts.length === 0) return [];
    const results = (await this.request('tokenize', texts)) as WorkerTokenization[];
    // Views made here: typed arrays from the worker belong to the main realm, which is not the
    // realm of code under jest (where `instanceof Uint32Array` would be false).
    return results.map(({ count, starts, ends }) => ({
      count,
      starts: new Uint32Array(starts.buffer, starts.byteOffset, starts.length),
      ends: new Uint32Array(ends.buffer, ends.byteOffset, ends.length),
    }));
  }

  async countTokens(texts: readonly string[]): Promise<number[]> {
    if (texts.length === 0) return [];
    return (await this.request('count', texts)) as number[];
  }

  /** Starts the worker and loads the model now rather than on the first call (rejects like `embed*` would). */
  async warmUp(): Promise<void> {
    await this.tokenize(['']);
  }

  stats(): LocalEmbeddingStats {
    return { ...this.counters, source: this.loaded };
  }

  /** Test support: the worker thread exits abruptly, as a crash of onnxruntime would end it. */
  crashWorkerForTesting(): void {
    for (const worker of this.workers.keys()) worker.postMessage({ type: 'crash' });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.closing.abort();
    const error = closedError();
    this.batcher.close(error);
    const workers = [...this.workers.keys()];
    this.workers.clear();
    this.failPending(error);
    await Promise.all(workers.map(stopBetweenRuns));
  }

  private async embedBatch(texts: readonly string[]): Promise<Float32Array[]> {
    const flat = (await this.request('embed', texts)) as Float32Array;
    const dim = this.info.dimensions;
    return texts.map((_, i) => {
      // A copy per vector (a kept vector does not keep the whole batch alive), made in this realm.
      const vector = new Float32Array(dim);
      vector.set(flat.subarray(i * dim, (i + 1) * dim));
      return vector;
    });
  }

  private request(type: 'embed' | 'tokenize' | 'count', texts: readonly string[]): Promise<unknown> {
    if (this.closed) return Promise.reject(closedError());
    let picked: Worker | Promise<Worker>;
    try {
      picked = this.pickWorker();
    } catch (error) {
      return Promise.reject(error);
    }
    if (picked instanceof Promise) return picked.then((worker) => (this.closed ? Promise.reject(closedError()) : this.send(worker, type, texts)));
    return this.send(picked, type, texts);
  }

  private send(worker: Worker, type: 'embed' | 'tokenize' | 'count', texts: readonly string[]): Promise<unknown> {
    const id = this.nextId++;
    if (type === 'embed') {
      this.counters.batches++;
      this.counters.texts += texts.length;
    }
    return new Promise((resolve, reject) => {
      this.pending.set(id, { worker, resolve, reject });
      this.workers.set(worker, (this.workers.get(worker) ?? 0) + 1);
      worker.ref();
      worker.postMessage({ type, id, texts });
    });
  }

  /**
   * The started worker with the fewest requests in flight. Another one starts while every
   * started one is busy, once one has loaded the model: only the first finds the model missing
   * or downloads it. While the hub is being asked whether it is there, calls wait for that answer.
   */
  private pickWorker(): Worker | Promise<Worker> {
    if (this.probing !== undefined) return this.probing;
    let best: Worker | undefined;
    let fewest = Infinity;
    for (const [worker, inFlight] of this.workers) {
      if (inFlight < fewest) [best, fewest] = [worker, inFlight];
    }
    if (best !== undefined && (fewest === 0 || this.loaded === undefined || this.workers.size >= this.maxWorkers)) return best;
    return this.startWorker();
  }

  private startWorker(): Worker | Promise<Worker> {
    const failure = this.loadFailure;
    if (failure && Date.now() - failure.at < (this.options.retryLoadAfterMs ?? 30_000)) throw failure.error;
    this.loadFailure = undefined;

    const cacheDir = this.options.dataDir === undefined ? undefined : join(this.options.dataDir, 'models');
    const download = this.options.download ?? true;
    const { source, searched } = resolveModel({
      model: this.model,
      dtype: this.dtype,
      modelsDir: this.options.modelsDir,
      cacheDir,
      remoteHost: download ? (this.options.remoteHost ?? DEFAULT_REMOTE_HOST) : undefined,
    });
    if (source === undefined) {
      const why = !download ? 'downloading is turned off' : 'there is no DATA_DIR to download it into';
      throw this.remember(this.notFound(searched, why));
    }
    let transformersPath: string;
    try {
      transformersPath = require.resolve('@huggingface/transformers');
    } catch {
      throw this.remember(
        new EmbeddingUnavailableError('model_load_failed', 'The local embedding provider needs the @huggingface/transformers package, which is not installed.'),
      );
    }
    if (source.kind !== 'hub') return this.spawn(source, searched, transformersPath);
    // A model still to download: is the hub there at all? Asked here, before a thread starts
    // (a worker's start and the library's load are most of a failed attempt's CPU), so an
    // offline process costs one request per retryLoadAfterMs, not a thread.
    const probing = hubReachable(this.model, source.remoteHost, this.closing.signal).then(
      () => {
        if (this.closed) throw closedError();
        return this.spawn(source, searched, transformersPath);
      },
      (cause: unknown) => {
        if (this.closed) throw closedError();
        throw this.remember(this.notFound(searched, `downloading it from ${source.remoteHost} into ${source.root} failed: ${messageOf(cause)}`));
      },
    );
    this.probing = probing;
    const done = (): void => {
      if (this.probing === probing) this.probing = undefined;
    };
    probing.then(done, done);
    return probing;
  }

  private spawn(source: ModelSource, searched: readonly string[], transformersPath: string): Worker {
    const worker = new Worker(EMBEDDING_WORKER_SOURCE, {
      eval: true,
      workerData: {
        transformersPath,
        model: this.model,
        dtype: this.dtype,
        source,
        dimensions: this.info.dimensions,
        maxSequenceLength: this.maxSequenceLength,
        inferenceBatchSize: this.options.inferenceBatchSize ?? 1,
        threads: this.options.threads ?? (this.maxWorkers > 1 ? 1 : undefined),
        nice: WORKER_NICE,
      },
    });
    this.counters.workerStarts++;
    this.workers.set(worker, 0);
    this.workerSource = source;
    worker.on('message', (message: WorkerMessage) => this.onMessage(worker, message, searched));
    worker.on('error', (error: Error) => this.onWorkerGone(worker, error.message));
    worker.on('exit', (code: number) => this.onWorkerGone(worker, `exit code ${code}`));
    return worker;
  }

  private onMessage(worker: Worker, message: WorkerMessage, searched: readonly string[]): void {
    switch (message.type) {
      case 'ready':
        this.loaded = this.workerSource;
        return;
      case 'load-failed': {
        const source = this.workerSource;
        const error =
          source?.kind === 'hub'
            ? this.notFound(searched, `downloading it from ${source.remoteHost} into ${source.root} failed: ${message.message}`)
            : new EmbeddingUnavailableError(
                'model_load_failed',
                `The embedding model ${this.model} (${this.dtype}) in ${source ? join(source.root, this.model) : '?'} ` +
                  `could not be loaded: ${message.message}. Replace the files, or set MODELS_DIR to a directory ` +
                  `with a complete copy.`,
              );
        this.remember(error);
        this.workers.delete(worker);
        this.failPending(error, worker);
        void worker.terminate();
        return;
      }
      case 'result':
      case 'error': {
        const pending = this.pending.get(message.id);
        if (!pending) return;
        this.pending.delete(message.id);
        const inFlight = (this.workers.get(worker) ?? 1) - 1;
        if (this.workers.has(worker)) this.workers.set(worker, inFlight);
        if (inFlight === 0) worker.unref();
        if (message.type === 'result') pending.resolve(message.result);
        else pending.reject(new AppError('internal', `local embedding failed: ${message.message}`));
        return;
      }
      default:
        return;
    }
  }

  private onWorkerGone(worker: Worker, why: string): void {
    if (!this.workers.delete(worker)) return;
    this.failPending(
      new EmbeddingUnavailableError(
        'worker_crashed',
        `The local embedding worker stopped (${why}); the calls it was serving failed, and it restarts on the next call.`,
      ),
      worker,
    );
  }

  /** Fails the requests in flight on `worker` (on every worker without one). */
  private failPending(error: unknown, worker?: Worker): void {
    for (const [id, request] of this.pending) {
      if (worker !== undefined && request.worker !== worker) continue;
      this.pending.delete(id);
      request.reject(error);
    }
  }

  private notFound(searched: readonly string[], download: string): EmbeddingUnavailableError {
    return EmbeddingUnavailableError.modelNotFound({ model: this.model, files: modelFiles(this.dtype), searched, download });
  }

  private remember(error: EmbeddingUnavailableError): EmbeddingUnavailableError {
    this.loadFailure = { error, at: Date.now() };
    return error;
  }
}

/** How long the hub may take to answer whether it is there before the download counts as failed. */
const HUB_PROBE_TIMEOUT_MS = 30_000;

/** Resolves once the hub answers a HEAD of the model's config (any status: the worker's download reports those); rejects when it cannot be reached. */
async function hubReachable(model: string, remoteHost: string, closing: AbortSignal): Promise<void> {
  const probe = new URL(`${model}/resolve/main/config.json`, remoteHost);
  try {
    const response = await fetch(probe, { method: 'HEAD', signal: AbortSignal.any([closing, AbortSignal.timeout(HUB_PROBE_TIMEOUT_MS)]) });
    await response.body?.cancel();
  } catch (error) {
    const cause = error instanceof Error && error.cause !== undefined ? error.cause : error;
    throw new Error(`the model hub at ${remoteHost} cannot be reached (${messageOf(cause)})`);
  }
}

const closedError = (): EmbeddingUnavailableError => new EmbeddingUnavailableError('closed', 'The local embedding provider is closed.');

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** How long a closing provider waits for the inference run in progress before it terminates the thread anyway. */
const SHUTDOWN_GRACE_MS = 15_000;

/**
 * Asks the worker to exit once its current inference run (and any queued one) has finished:
 * terminating a thread while onnxruntime runs in it aborts the whole process. A worker that
 * does not exit within the grace period is terminated.
 */
async function stopBetweenRuns(worker: Worker): Promise<void> {
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  worker.ref();
  worker.postMessage({ type: 'shutdown' });
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), SHUTDOWN_GRACE_MS);
    timer.unref();
  });
  const outcome = await Promise.race([exited, late]);
  clearTimeout(timer);
  if (outcome === 'late') await worker.terminate();
}
