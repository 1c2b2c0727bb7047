import { lengthOrder } from './vector-math';

export interface EmbeddingBatcherOptions {
  /** Most texts handed to `embed` at once (the local worker's batch, an HTTP request's inputs). */
  readonly maxBatchSize: number;
  /** Most `embed` calls running at once. */
  readonly maxConcurrency: number;
  /** Embeds one batch: one vector per text, in order. A rejection fails every text of the batch. */
  readonly embed: (texts: readonly string[]) => Promise<Float32Array[]>;
}

export type EmbeddingPriority = 'query' | 'documents';

interface Pending {
  readonly text: string;
  readonly resolve: (vector: Float32Array) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Queues texts from every caller and hands them to `embed` in batches of up to
 * `maxBatchSize`, with at most `maxConcurrency` batches running. Texts submitted in the same
 * turn of the event loop share batches. Queries go ahead of queued documents, so a search is
 * not stuck behind a large ingestion. A call's documents are queued shortest first, so that a
 * batch holds texts of similar length (less padding work for a model, fewer stragglers for a
 * server); results come back in the caller's order.
 */
export class EmbeddingBatcher {
  private readonly queries: Pending[] = [];
  private readonly documents: Pending[] = [];
  private running = 0;
  private scheduled = false;
  private closed: Error | undefined;

  constructor(private readonly options: EmbeddingBatcherOptions) {
    if (!Number.isInteger(options.maxBatchSize) || options.maxBatchSize < 1) {
      throw new RangeError(`maxBatchSize must be a positive integer, got ${options.maxBatchSize}`);
    }
    if (!Number.isInteger(options.maxConcurrency) || options.maxConcurrency < 1) {
      throw new RangeError(`maxConcurrency must be a positive integer, got ${options.maxConcurrency}`);
    }
  }

  /** Texts waiting for a batch (not those being embedded). */
  get queued(): number {
    return this.queries.length + this.documents.length;
  }

  submit(texts: readonly string[], priority: EmbeddingPriority = 'documents'): Promise<Float32Array[]> {
    if (this.closed) return Promise.reject(this.closed);
    if (texts.length === 0) return Promise.resolve([]);
    const results = new Array<Promise<Float32Array>>(texts.length);
    const queue = priority === 'query' ? this.queries : this.documents;
    const order = texts.length > 1 ? lengthOrder(texts) : [0];
    for (const index of order) {
      results[index] = new Promise<Float32Array>((resolve, reject) => {
        queue.push({ text: texts[index] as string, resolve, reject });
      });
    }
    this.schedule();
    return Promise.all(results);
  }

  /** One query's vector, ahead of queued documents: what every provider's `embedQuery` is. */
  async submitQuery(text: string): Promise<Float32Array> {
    const [vector] = await this.submit([text], 'query');
    return vector as Float32Array;
  }

  /** Fails every queued text with `error`, and every later submission; running batches finish. */
  close(error: Error): void {
    this.closed = error;
    for (const pending of [...this.queries.splice(0), ...this.documents.splice(0)]) pending.reject(error);
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    // setImmediate rather than a microtask: callers that submit from separate promise chains in
    // the same turn (concurrent HTTP requests) still land in one batch.
    setImmediate(() => {
      this.scheduled = false;
      this.pump();
    });
  }

  private pump(): void {
    while (this.running < this.options.maxConcurrency && this.queued > 0) {
      const batch = this.take();
      this.running++;
      void this.run(batch).finally(() => {
        this.running--;
        this.pump();
      });
    }
  }

  private take(): Pending[] {
    const batch = this.queries.splice(0, this.options.maxBatchSize);
    if (batch.length < this.options.maxBatchSize) {
      batch.push(...this.documents.splice(0, this.options.maxBatchSize - batch.length));
    }
    return batch;
  }

  private async run(batch: readonly Pending[]): Promise<void> {
    try {
      const vectors = await this.options.embed(batch.map((pending) => pending.text));
      if (vectors.length !== batch.length) {
        throw new Error(`embedding batch returned ${vectors.length} vectors for ${batch.length} texts`);
      }
      batch.forEach((pending, i) => pending.resolve(vectors[i] as Float32Array));
    } catch (error) {
      for (const pending of batch) pending.reject(error);
    }
  }
}
