import { AppError } from '@lore/platform/kernel';

/** Why embeddings are unavailable; `retryable` says whether trying again later can help. */
export type EmbeddingUnavailableReason =
  /** The local model is in none of MODELS_DIR, the cache under DATA_DIR, the hub. */
  | 'model_not_found'
  /** The model files were found but could not be loaded (corrupt file, unsupported model). */
  | 'model_load_failed'
  /** The local worker thread died while embedding (it restarts on the next call). */
  | 'worker_crashed'
  /** The provider was closed. */
  | 'closed'
  /** The server did not answer in time, after the retries. */
  | 'timeout'
  /** The server kept answering 429, after the retries. */
  | 'rate_limited'
  /** The server kept answering 5xx, after the retries. */
  | 'server_error'
  /** The server could not be reached, after the retries. */
  | 'network';

const PERMANENT: ReadonlySet<EmbeddingUnavailableReason> = new Set(['model_not_found', 'model_load_failed', 'closed']);

/**
 * Embeddings cannot be computed right now: AppError code `unavailable` (HTTP 503), with a
 * message safe to show (no API key, no request body).
 */
export class EmbeddingUnavailableError extends AppError {
  constructor(
    readonly reason: EmbeddingUnavailableReason,
    message: string,
  ) {
    super('unavailable', message);
    this.name = 'EmbeddingUnavailableError';
  }

  /** A background job (ingestion) should retry later with backoff; a permanent cause needs an operator. */
  get retryable(): boolean {
    return !PERMANENT.has(this.reason);
  }

  /** The local model is nowhere: the message names `MODELS_DIR`, the places searched and why the download failed. */
  static modelNotFound(details: {
    readonly model: string;
    readonly files: readonly string[];
    readonly searched: readonly string[];
    readonly download: string;
  }): EmbeddingUnavailableError {
    const searched = details.searched.length > 0 ? details.searched.join(', ') : 'no local directory configured';
    return new EmbeddingUnavailableError(
      'model_not_found',
      `The embedding model ${details.model} is not available, so embedding (indexing and vector search) ` +
        `is disabled; everything else keeps working. Set MODELS_DIR to a directory that holds ` +
        `${details.model}/{${details.files.join(',')}} (searched: ${searched}; ${details.download}).`,
    );
  }
}

export const isEmbeddingUnavailable = (error: unknown): error is EmbeddingUnavailableError =>
  error instanceof EmbeddingUnavailableError;
