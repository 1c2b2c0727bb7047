import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from 'pino';

/**
 * Answers the errors Node's HTTP parser raises before Fastify sees a request (headers over
 * `maxHeaderSize` → 431, a request that does not parse → 400, too slow → 408) in the
 * gateway's `{"detail": "..."}` shape, then closes the connection, as Node and Fastify do.
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket, logger?: Logger): void {
  // The peer is gone: there is nobody to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const status = clientErrorStatus(error.code);
  logger?.debug({ code: error.code, status }, 'client error');
  if (socket.writable) {
    const body = JSON.stringify({ detail: STATUS_CODES[status] ?? 'Bad Request' });
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}

export function clientErrorStatus(code: string | undefined): number {
  if (code === 'HPE_HEADER_OVERFLOW') return 431;
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return 408;
  return 400;
}
