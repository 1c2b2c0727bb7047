import { AppError } from '@lore/platform/kernel';

/** Why the chat model gave no usable answer; `retryable` says whether trying again later can help. */
export type ChatModelFailureReason =
  /** No chat model is configured (CHAT_OPENAI_BASE_URL unset). */
  | 'not_configured'
  /** The server did not answer in time, after the retries. */
  | 'timeout'
  /** The server kept answering 429, or asked to wait longer than allowed. */
  | 'rate_limited'
  /** The server kept answering 5xx, after the retries. */
  | 'server_error'
  /** The server could not be reached, after the retries. */
  | 'network'
  /** The server refused the request for good (4xx other than 408/409/425/429), or the egress rules refused the address. */
  | 'refused'
  /** The model answered, but not with JSON matching the schema (or it refused, or was cut off). */
  | 'malformed_output';

const RETRYABLE: ReadonlySet<ChatModelFailureReason> = new Set(['timeout', 'rate_limited', 'server_error', 'network']);

/**
 * The chat model failed: AppError `unavailable` (HTTP 503), or `bad_gateway`-like
 * `unavailable` for a malformed answer too — the caller's request was fine, the model was not.
 * The message is safe to show: it names the server's origin and its own error message (the
 * API key masked), never the prompt.
 */
export class ChatModelError extends AppError {
  constructor(
    readonly reason: ChatModelFailureReason,
    message: string,
  ) {
    super('unavailable', message);
    this.name = 'ChatModelError';
  }

  get retryable(): boolean {
    return RETRYABLE.has(this.reason);
  }
}

export const isChatModelError = (error: unknown): error is ChatModelError => error instanceof ChatModelError;
