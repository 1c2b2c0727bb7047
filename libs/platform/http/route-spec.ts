import type { z } from 'zod';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * One HTTP operation, described once: the gateway registers it with Fastify, validates
 * requests with its schemas and generates `/openapi.json` from the same schemas.
 */
export interface RouteSpec {
  readonly method: HttpMethod;
  /** Fastify path syntax, e.g. `/api/v1/memories/:memory_id`. */
  readonly path: string;
  readonly operationId: string;
  readonly summary: string;
  readonly tags: readonly string[];
  /** false for the open endpoints (health, docs, provider models). */
  readonly auth: boolean;
  readonly params?: z.ZodObject;
  readonly query?: z.ZodObject;
  readonly body?: z.ZodType;
  /** Largest JSON body this operation takes, when above the gateway's MAX_BODY_BYTES. */
  readonly bodyLimit?: number;
  /**
   * How long this operation's messages may take, when its work is known to outlast the
   * gateway's REQUEST_TIMEOUT_MS (calls to third parties with their own deadlines).
   */
  readonly timeoutMs?: number;
  /**
   * Also accepts `multipart/form-data`: one file part named `file` (at most `maxBytes`, else
   * 413) and the text fields `fields` describes. The handler then gets `upload` instead of `body`.
   */
  readonly upload?: { readonly fields: z.ZodObject; readonly maxBytes: number; readonly issueLocations?: IssueLocations };
  /**
   * Where a service's refusal of a message field lands in this operation's terms, for fields
   * whose snake_case name is not one the operation takes (e.g. `sizeBytes` → `["body","text"]`).
   * The gateway maps every other message field by name; see `inApiTerms`.
   */
  readonly issueLocations?: IssueLocations;
  /**
   * Success status (201 for creates, else 200) and its body schema; 302 for the browser
   * endpoints that answer with a `RedirectReply` (documented with its Location header only).
   */
  readonly status: 200 | 201 | 302;
  readonly response: z.ZodType;
  /**
   * When the operation may answer 202 Accepted instead (the handler returns an `AcceptedReply`,
   * its body of the same `response` schema): work that is stored and under way but outlasted
   * the request's wait. Documented as the 202 response's description.
   */
  readonly accepted?: string;
  /**
   * Media types besides JSON this operation may answer with (a handler returns a
   * `TextReply` for them), e.g. `text/markdown` for an export; documented as plain strings.
   */
  readonly textResponses?: readonly string[];
  /** Error statuses this operation documents besides 401/422, e.g. [403, 404]. */
  readonly errors?: readonly number[];
}

/** Message field name → the API location (e.g. `["body","file"]`) a 422 names instead. */
export type IssueLocations = Readonly<Record<string, ReadonlyArray<string | number>>>;

/** A success body that is not JSON (an export as Markdown): sent as is with its media type. */
export class TextReply {
  constructor(
    readonly contentType: string,
    readonly text: string,
  ) {}
}

/**
 * A success body that is a file (a kept upload): its bytes as they come (one piece at a time,
 * so a large file is never whole in the gateway's memory), with its media type, length and the
 * name offered for saving. Routes returning one list its possible types in `textResponses`.
 */
export class FileReply {
  constructor(
    readonly contentType: string,
    readonly fileName: string,
    readonly sizeBytes: number,
    readonly pieces: () => AsyncIterable<Buffer>,
  ) {}
}

/** One Server-Sent Event: `id` is what a client resumes from (`Last-Event-ID`). */
export interface ServerSentEvent {
  readonly id?: string;
  /** Absent: the default `message` event (what `EventSource.onmessage` receives). */
  readonly event?: string;
  /** Text, written as it is (a `data:` line per line of it). */
  readonly data: string;
}

/**
 * A success body that is a stream of Server-Sent Events, in pages (the events read together:
 * one step of the iteration for many of them in a catch-up). The gateway calls `open` with the
 * client's `Last-Event-ID` header (when sent: a reconnect) and a signal that aborts when the
 * client goes away or the server stops; it writes each page as the socket accepts it
 * (backpressure: nothing is pulled while the client lags), with heartbeats between.
 */
export class EventStreamReply {
  constructor(readonly open: (lastEventId: string | undefined, signal: AbortSignal) => AsyncIterable<readonly ServerSentEvent[]>) {}
}

/**
 * 202 Accepted with `body` (of the route's `response` schema): what the request asked for is
 * stored and under way, and did not finish within the request's wait (routes declaring `accepted`).
 */
export class AcceptedReply<T = unknown> {
  constructor(readonly body: T) {}
}

/**
 * A browser sent on (302 Found with `Location`): the open endpoints of the OAuth connect flow.
 * Never cached, and no Referer: the URL it leaves may carry a one-time token.
 */
export class RedirectReply {
  constructor(readonly location: string) {}
}
