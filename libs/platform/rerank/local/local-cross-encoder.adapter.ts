import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { resolveModel, type LocalDtype } from '@lore/platform/embeddings/port';
import { RerankFailure, type RerankProvider, type RerankProviderInfo, type RerankScored } from '@lore/platform/rerank/port';
import { CROSS_ENCODER_WORKER_SOURCE } from './cross-encoder-worker.source';

/** ms-marco-MiniLM-L-6-v2 in the transformers.js layout: 22 M parameters, MS MARCO passage ranking. */
export const DEFAULT_LOCAL_RERANK_MODEL = 'Xenova/ms-marco-MiniLM-L-6-v2';

export interface LocalCrossEncoderOptions {
  readonly model?: string;
  readonly dtype?: LocalDtype;
  /** MODELS_DIR, then `<DATA_DIR>/models`: where `<model>/onnx/...` is looked for. Never downloaded. */
  readonly modelsDir?: string | undefined;
  readonly cacheDir?: string | undefined;
  /** Tokens of a (query, passage) pair; longer passages are cut (512: BERT's positions). */
  readonly maxSequenceLength?: number;
  /** Pairs per model run (padding to the longest in a batch; 16 keeps that small). */
  readonly batchSize?: number;
  /** onnxruntime intra-op threads (default 1: like the embedding workers, see their README). */
  readonly threads?: number;
  /** How long a failed load is remembered before the next request tries again. */
  readonly retryLoadAfterMs?: number;
}

interface Pending {
  readonly resolve: (scores: number[]) => void;
  readonly reject: (error: Error) => void;
}

type WorkerMessage = { type: 'ready' } | { type: 'load-failed'; message: string } | { type: 'result'; id: number; scores: number[] } | { type: 'error'; id: number; message: string };

/** Below the requests' priority, as the embedding workers run (Linux nice value). */
const WORKER_NICE = 5;

/**
 * A cross-encoder run in-process with transformers.js/onnxruntime in one worker thread, started
 * on first use, from ONNX files found in MODELS_DIR (or `<DATA_DIR>/models`): never downloaded,
 * so a process without the files serves everything else and this provider answers 503 naming
 * where it looked.
 */
export class LocalCrossEncoderProvider implements RerankProvider {
  readonly info: RerankProviderInfo;
  private worker: Worker | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  private failedLoad: { error: RerankFailure; at: number } | null = null;

  constructor(private readonly options: LocalCrossEncoderOptions = {}) {
    this.info = { provider: 'local', model: options.model ?? DEFAULT_LOCAL_RERANK_MODEL };
  }

  async rerank(query: string, documents: readonly string[], options?: { readonly model?: string }): Promise<RerankScored[]> {
    if (options?.model !== undefined && options.model !== this.info.model) {
      throw new RerankFailure('refused', 'local', `serves ${this.info.model}, not ${options.model} (RERANK_LOCAL_MODEL)`);
    }
    if (documents.length === 0) return [];
    const worker = this.started();
    const id = this.nextId++;
    const scores = await new Promise<number[]>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ id, query, documents });
    });
    return scores.map((score, index) => ({ index, score })).sort((a, b) => b.score - a.score || a.index - b.index);
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    this.failAll(new RerankFailure('server_error', 'local', 'was closed'));
    await worker?.terminate();
  }

  private started(): Worker {
    if (this.worker !== null) return this.worker;
    if (this.failedLoad !== null && Date.now() - this.failedLoad.at < (this.options.retryLoadAfterMs ?? 30_000)) throw this.failedLoad.error;
    const dtype = this.options.dtype ?? 'q8';
    const { source, searched } = resolveModel({ model: this.info.model, dtype, modelsDir: this.options.modelsDir, cacheDir: this.options.cacheDir });
    if (source === undefined) {
      throw this.remember(
        new RerankFailure('model_not_found', 'local', `has no model: ${this.info.model} (${dtype}) is in none of ${searched.join(', ')}; put its ONNX files in MODELS_DIR (README: Re-ranking)`),
      );
    }
    let transformersPath: string;
    try {
      transformersPath = require.resolve('@huggingface/transformers');
    } catch {
      throw this.remember(new RerankFailure('model_not_found', 'local', 'needs the @huggingface/transformers package, which is not installed'));
    }
    const worker = new Worker(CROSS_ENCODER_WORKER_SOURCE, {
      eval: true,
      workerData: {
        transformersPath,
        model: this.info.model,
        dtype,
        root: source.root,
        maxSequenceLength: this.options.maxSequenceLength ?? 512,
        batchSize: this.options.batchSize ?? 16,
        threads: this.options.threads ?? 1,
        nice: WORKER_NICE,
      },
    });
    worker.unref();
    worker.on('message', (message: WorkerMessage) => this.onMessage(message, join(source.root, this.info.model)));
    worker.on('error', (error: Error) => this.onGone(worker, error.message));
    worker.on('exit', (code: number) => this.onGone(worker, `exit code ${code}`));
    this.worker = worker;
    return worker;
  }

  private onMessage(message: WorkerMessage, dir: string): void {
    switch (message.type) {
      case 'ready':
        return;
      case 'load-failed': {
        const error = this.remember(new RerankFailure('model_not_found', 'local', `could not load ${dir}: ${message.message}`));
        const worker = this.worker;
        this.worker = null;
        this.failAll(error);
        void worker?.terminate();
        return;
      }
      case 'result':
        this.settle(message.id)?.resolve(message.scores);
        return;
      case 'error':
        this.settle(message.id)?.reject(new RerankFailure('server_error', 'local', `failed: ${message.message}`));
        return;
    }
  }

  private onGone(worker: Worker, why: string): void {
    if (this.worker !== worker) return;
    this.worker = null;
    this.failAll(new RerankFailure('server_error', 'local', `worker stopped (${why})`));
  }

  private settle(id: number): Pending | undefined {
    const pending = this.pending.get(id);
    this.pending.delete(id);
    return pending;
  }

  private failAll(error: Error): void {
    for (const pending of this.pending.values()) pending.reject(error);
    this.pending.clear();
  }

  private remember(error: RerankFailure): RerankFailure {
    this.failedLoad = { error, at: Date.now() };
    return error;
  }
}
