/**
 * Messaging between the gateway and the context services. Request/reply carries commands
 * and queries; publish/subscribe carries integration events to downstream subscribers.
 * Payloads are JSON values. A handler failure arrives at the caller as the same AppError
 * (code, message, issues); a missing or slow responder is an AppError with code `unavailable`.
 */
export type RequestHandler = (payload: unknown, context: MessageContext) => Promise<unknown>;
export type EventHandler = (payload: unknown, context: MessageContext) => Promise<void>;

export interface MessageContext {
  readonly subject: string;
  /** Request id of the HTTP request that caused the message, for log correlation. */
  readonly requestId?: string;
  /**
   * When the caller stops waiting (epoch ms on the serving process's clock): the transport
   * derives it from the budget the request carries, measured from its arrival.
   */
  readonly deadline?: number;
  /** The caller's trace context (W3C headers), so the server's span continues its trace. */
  readonly trace?: MessageTrace;
}

/** W3C trace context as it travels with a message (NATS headers of the same names). */
export interface MessageTrace {
  readonly traceparent?: string;
  readonly tracestate?: string;
}

export interface RequestOptions {
  readonly timeoutMs?: number;
  readonly requestId?: string;
  readonly trace?: MessageTrace;
}

export interface PublishOptions {
  readonly requestId?: string;
  /**
   * De-duplication key (an integration event's `event_id`). A durable transport (NATS
   * JetStream) stores a message id once within its duplicate window; in-process ignores it.
   */
  readonly messageId?: string;
}

export interface TransportSubscription {
  close(): Promise<void>;
}

export interface Transport {
  /** Untyped: contexts send through `send(transport, message, request)`, which parses the reply. */
  request(subject: string, payload: unknown, options?: RequestOptions): Promise<unknown>;
  /** Serves requests on a subject; several servers of one subject share the load (queue group). */
  serve(subject: string, handler: RequestHandler): Promise<TransportSubscription>;
  /**
   * An event for subscribers; `*` and `>` wildcards as in NATS work for them. On a subject
   * the transport keeps durably (NATS: the integration-event stream) it resolves only once
   * the event is stored and rejects otherwise, so a reactor retries instead of moving on.
   */
  publish(subject: string, payload: unknown, options?: PublishOptions): Promise<void>;
  subscribe(subject: string, handler: EventHandler): Promise<TransportSubscription>;
  /** Resolves once the transport can carry messages (for `/ready`). */
  isReady(): boolean;
  close(): Promise<void>;
}

export const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;
