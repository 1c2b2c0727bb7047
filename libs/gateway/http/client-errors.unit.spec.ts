import type { Socket } from 'node:net';
import { answerClientError, clientErrorStatus } from './client-errors';

function fakeSocket(state: { destroyed?: boolean; writable?: boolean } = {}): { socket: Socket; written: string[]; destroyedWith: unknown[] } {
  const written: string[] = [];
  const destroyedWith: unknown[] = [];
  const socket = {
    destroyed: state.destroyed ?? false,
    writable: state.writable ?? true,
    write: (data: string) => written.push(data),
    destroy: (error?: unknown) => destroyedWith.push(error),
  } as unknown as Socket;
  return { socket, written, destroyedWith };
}

const error = (code: string): Error & { code: string } => Object.assign(new Error(code), { code });

describe('answerClientError', () => {
  it.each([
    ['HPE_HEADER_OVERFLOW', 431, 'Request Header Fields Too Large'],
    ['ERR_HTTP_REQUEST_TIMEOUT', 408, 'Request Timeout'],
    ['HPE_INVALID_METHOD', 400, 'Bad Request'],
  ])('answers %s with %i and a {detail} body, then closes', (code, status, detail) => {
    const { socket, written, destroyedWith } = fakeSocket();
    answerClientError(error(code), socket);
    expect(clientErrorStatus(code)).toBe(status);
    expect(written).toHaveLength(1);
    const [head, body] = (written[0] ?? '').split('\r\n\r\n');
    expect(head).toMatch(new RegExp(`^HTTP/1.1 ${status} ${detail}\r\n`));
    expect(head).toContain('Content-Type: application/json');
    expect(head).toContain(`Content-Length: ${Buffer.byteLength(body ?? '')}`);
    expect(JSON.parse(body ?? '')).toEqual({ detail });
    expect(destroyedWith).toHaveLength(1);
  });

  it('writes nothing to a peer that is gone', () => {
    for (const [state, code] of [[{}, 'ECONNRESET'], [{ destroyed: true }, 'HPE_HEADER_OVERFLOW']] as const) {
      const { socket, written } = fakeSocket(state);
      answerClientError(error(code), socket);
      expect(written).toEqual([]);
    }
  });
});
