import type { z } from 'zod';
import { AppError } from '@lore/platform/kernel';
import type { RequestHandler, Transport, TransportSubscription } from '@lore/platform/transport/port';

/** Subject → handler: what a service serves on the transport. */
export type MessageRoutes = Readonly<Record<string, RequestHandler>>;

/**
 * Parses an incoming message with its contract schema before the handler sees it: the
 * gateway and the services may be deployed at different versions.
 */
export function messageHandler<S extends z.ZodType, R>(schema: S, handle: (message: z.infer<S>) => Promise<R>): RequestHandler {
  return async (payload) => {
    const parsed = schema.safeParse(payload);
    if (!parsed.success) {
      throw new AppError(
        'validation',
        'message does not match its contract',
        parsed.error.issues.map((issue) => ({ loc: ['message', ...issue.path.map((p) => (typeof p === 'number' ? p : String(p)))], msg: issue.message, type: issue.code })),
      );
    }
    return handle(parsed.data);
  };
}

export async function serveRoutes(transport: Transport, routes: MessageRoutes): Promise<TransportSubscription[]> {
  return Promise.all(Object.entries(routes).map(([subject, handler]) => transport.serve(subject, handler)));
}
