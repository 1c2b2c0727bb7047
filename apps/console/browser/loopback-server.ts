import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** An HTTP server on 127.0.0.1 (a provider or webhook stand-in) started before a spec file's tests and closed after them. */
export function useLoopbackServer(handle: (request: IncomingMessage, response: ServerResponse) => void): { readonly url: string } {
  const server = createServer(handle);
  const under = { url: '' };
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    under.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return under;
}
