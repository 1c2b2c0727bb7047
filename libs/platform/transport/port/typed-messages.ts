import { z } from 'zod';
import { AppError, requestDeadline, waitWithinDeadline, type Message, type ReplyOf, type RequestOf, type ValidRequestOf } from '@lore/platform/kernel';
import { DEFAULT_REQUEST_TIMEOUT_MS, type MessageContext, type RequestHandler, type RequestOptions, type Transport, type TransportSubscription } from './transport.port';

/**
 * Sends a typed message and parses the reply with the message's reply schema: a reply that
 * does not match (a service of another version, something that is not Lore) is an error,
 * never a value of the wrong shape.
 */
export function send<M extends Message>(transport: Transport, message: M, request: RequestOf<M>, options?: RequestOptions): Promise<ReplyOf<M>> {
  // A promise chain, not an async function: one promise less on every message sent.
  let pending: Promise<unknown>;
  try {
    pending = transport.request(message.subject, request, withinDeadline(options));
  } catch (error) {
    return Promise.reject(error);
  }
  return pending.then((reply) => {
    const parsed = message.reply.safeParse(reply);
    if (!parsed.success) throw new AppError('internal', `malformed reply on ${message.subject}`);
    return parsed.data as ReplyOf<M>;
  });
}

/**
 * A request sent while serving another (a service asking another service) gets no more time than
 * the outer request has left, so the outer caller hears the inner one's answer or 503 in time,
 * instead of timing out itself. An explicit `timeoutMs` is kept.
 */
function withinDeadline(options: RequestOptions | undefined): RequestOptions | undefined {
  if (options?.timeoutMs !== undefined || requestDeadline() === undefined) return options;
  return { ...options, timeoutMs: Math.max(1, waitWithinDeadline(DEFAULT_REQUEST_TIMEOUT_MS)) };
}

/** A message a service answers, with its handler. */
export interface MessageHandler {
  readonly message: Message;
  readonly handle: RequestHandler;
}

/**
 * Binds a handler to its message. Every request is validated with the message's request
 * schema before the handler sees it, whoever sent it (the gateway or any client on NATS).
 */
export function handle<M extends Message>(message: M, fn: (request: ValidRequestOf<M>, context: MessageContext) => Promise<ReplyOf<M>>): MessageHandler {
  return {
    message,
    // Not async (an extra promise per message, which the request context's async hooks see):
    // a refusal, or a handler that throws before its first await, rejects all the same.
    handle: (payload, context) => {
      try {
        const parsed = message.request.safeParse(payload);
        if (!parsed.success) {
          throw new AppError(
            'validation',
            `request does not match ${message.subject}`,
            parsed.error.issues.map((issue) => ({ loc: ['message', ...issue.path.map((p) => (typeof p === 'number' ? p : String(p)))], msg: issue.message, type: issue.code })),
          );
        }
        return fn(parsed.data as ValidRequestOf<M>, context);
      } catch (error) {
        return Promise.reject(error);
      }
    },
  };
}

export async function serveMessages(transport: Transport, handlers: readonly MessageHandler[]): Promise<TransportSubscription[]> {
  return Promise.all(handlers.map((h) => transport.serve(h.message.subject, h.handle)));
}

/** Readiness of a context, served by its host on `<context>.query.status` and read by `/ready`. */
export const ContextStatus = z.object({
  ready: z.boolean(),
  /** State of each projection and reactor: live, catching-up, retrying, stopped. */
  processors: z.record(z.string(), z.string()),
  /** Parked events per processor that holds any (none: ready and not degraded). Optional: older services do not send it. */
  parked: z.record(z.string(), z.number().int()).optional(),
});
export type ContextStatus = z.infer<typeof ContextStatus>;

export const contextStatusMessage = (context: string) => ({ subject: `${context}.query.status`, request: z.object({}), reply: ContextStatus }) satisfies Message;
