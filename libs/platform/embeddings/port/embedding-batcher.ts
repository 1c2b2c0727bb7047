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
 * server); results come back in the caller's order. Calls' documents share batches in turns,
 * one text of each waiting call after the other: a call of 3 texts made while another's 64 are
 * queued goes into the next batch rather than behind all 64 (first come, first served, one
 * tenant's large content held up another's small one for as long as the model took over it).
 */
export class EmbeddingBatcher {
  private readonly queries: Pending[] = [];
  /** Each waiting call's documents, served in turns from `turn`. */
  private readonly documents: Pending[][] = [];
  private documentsQueued = 0;
  private turn = 0;
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
    return this.queries.length + this.documentsQueued;
  }

  submit(texts: readonly string[], priority: EmbeddingPriority = 'documents'): Promise<Float32Array[]> {
    if (this.closed) return Promise.reject(this.closed);
    if (texts.length === 0) return Promise.resolve([]);
    const results = new Array<Promise<Float32Array>>(texts.length);
    const queue: Pending[] = priority === 'query' ? this.queries : [];
    if (priority === 'documents') {
      this.documents.push(queue);
      this.documentsQueued += texts.length;
    }
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
    for (const pending of [...this.queries.splice(0), ...this.documents.splice(0).flat()]) pending.reject(error);
    this.documentsQueued = 0;
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
    while (batch.length < this.options.maxBatchSize && this.documents.length > 0) {
      const call = this.documents[this.turn];
      const next = call?.shift();
      if (call === undefined || next === undefined) throw new Error('embedding batcher: an empty call was left in the ring');
      batch.push(next);
      this.documentsQueued--;
      // A call with nothing left leaves the ring; the next call moves into its turn.
      if (call.length === 0) this.documents.splice(this.turn, 1);
      else this.turn++;
      if (this.turn >= this.documents.length) this.turn = 0;
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
