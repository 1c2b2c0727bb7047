import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { invalidJsonBody, readJsonBody, type JsonBodyReading } from './json-body-reading';
import { JsonBodyThread, type JsonBodyQueueLimits } from './json-body-thread';
import { admittedScope } from './admitted-scopes';

/**
 * The one turn every large body without an admitted workspace shares (a route open to anyone, a
 * path that will be 404): by address, a client choosing its own X-Forwarded-For behind a trusted
 * proxy had as many turns as it liked, and could fill the queue every workspace waits in.
 */
const UNADMITTED = '(unadmitted)';

/** Bodies this large and larger are read on the reader thread (~15 ms of parsing on the event loop below it). */
export const JSON_BODY_THREAD_FROM_BYTES = 1 << 20;

/**
 * Fastify's JSON parser (with its prototype-poisoning guards), fronted by the checks FastAPI's
 * clients expect to end in a 422 `json_invalid` (see `readJsonBody`). An empty body is no body
 * (`undefined`), whatever the method: routes that need one then report the missing fields.
 * A body of a megabyte or more is read on a thread of its own (`JsonBodyThread`), with the same
 * answers, so that one client's 19 MB text does not hold every other request back, in turns by
 * the workspace the request was admitted to (requests admitted to none share one turn).
 */
export function useJsonBodyParser(app: FastifyInstance, options: { readonly threadFromBytes?: number; readonly queue?: JsonBodyQueueLimits } = {}): void {
  const threadFrom = options.threadFromBytes ?? JSON_BODY_THREAD_FROM_BYTES;
  const thread = new JsonBodyThread(options.queue);
  app.addHook('onClose', () => thread.close());
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
    const answer = (reading: JsonBodyReading): void => (reading.ok ? done(null, reading.value) : done(invalidJsonBody(reading.issue), undefined));
    if (bytes.length === 0) done(null, undefined);
    else if (bytes.length < threadFrom) answer(readJsonBody(bytes));
    else {
      // A client that closes its connection while its body waits gives its place in the queue up.
      const socket = request.raw.socket as Socket | undefined;
      const gone = new AbortController();
      const abort = (): void => gone.abort();
      socket?.once('close', abort);
      thread
        .read(bytes, admittedScope(request)?.workspaceId ?? UNADMITTED, gone.signal)
        .finally(() => socket?.removeListener('close', abort))
        .then(answer, (error: Error) => done(error, undefined));
    }
  });
}
