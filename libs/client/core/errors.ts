import type { components } from '../generated/openapi';

/** One failed check of a 422, in FastAPI's shape: where (`["body", "name"]`), what, and its type. */
export type ValidationIssue = components['schemas']['ValidationError'];

/**
 * The `detail` of an error body, in the three shapes the API answers: a sentence (401, 403,
 * 404, 409, 413, 429, 503…), the located issues of a 422, or a connection validation failure
 * (400: one message per failed check).
 */
export type ErrorDetail = string | ValidationIssue[] | { message: string; errors: string[] };

/** Any answer of the API outside 2xx, with what the API said and what the client needs to react. */
export class LoreApiError extends Error {
  override readonly name = 'LoreApiError';

  constructor(
    readonly status: number,
    readonly detail: ErrorDetail,
    /** `X-Request-Id` of the answer: quote it when reporting a problem. */
    readonly requestId: string | undefined,
    /** `Retry-After` in seconds (429, 503), when the answer had one. */
    readonly retryAfterSeconds: number | undefined,
  ) {
    super(`HTTP ${status}: ${describeDetail(detail)}`);
  }

  /** The located issues of a 422 (empty for any other error). */
  get validationIssues(): ValidationIssue[] {
    return Array.isArray(this.detail) ? this.detail : [];
  }

  /** Reads an error answer; a body that is not the API's `{detail}` keeps its text as the detail. */
  static async fromResponse(response: Response): Promise<LoreApiError> {
    const text = await response.text().catch(() => '');
    return new LoreApiError(response.status, detailOf(text, response.statusText), response.headers.get('x-request-id') ?? undefined, retryAfterSeconds(response.headers));
  }
}

/** Thrown by `waitUntilProcessed` when a content's processing ends `failed`. */
export class LoreProcessingError extends Error {
  override readonly name = 'LoreProcessingError';
  constructor(
    readonly contentId: string,
    readonly reason: string | null,
  ) {
    super(`content ${contentId} failed: ${reason ?? 'no reason given'}`);
  }
}

function detailOf(text: string, statusText: string): ErrorDetail {
  try {
    const body: unknown = JSON.parse(text);
    if (typeof body === 'object' && body !== null && 'detail' in body) return body.detail as ErrorDetail;
  } catch {
    // not JSON: a proxy's page, an empty body
  }
  return text === '' ? statusText : text;
}

function describeDetail(detail: ErrorDetail): string {
  if (typeof detail === 'string') return detail;
  if (Array.isArray(detail)) return detail.map((issue) => `${issue.loc.join('.')}: ${issue.msg}`).join('; ');
  return `${detail.message}: ${detail.errors.join('; ')}`;
}

/** `Retry-After` as seconds (a number of seconds or an HTTP date), undefined when absent or unreadable. */
export function retryAfterSeconds(headers: Headers): number | undefined {
  const value = headers.get('retry-after');
  if (value === null) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, (date - Date.now()) / 1000);
}
