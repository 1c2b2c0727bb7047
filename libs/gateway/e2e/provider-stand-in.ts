import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A small HTTP server standing in for a third-party provider (a hosted API cannot run here):
 * a bearer-protected health path, a GitLab-like OAuth 2.0 token endpoint that counts its
 * refreshes and rotates refresh tokens, and a user endpoint that wants the fresh token.
 */
export interface ProviderStandIn {
  readonly url: string;
  readonly port: number;
  /** refresh_token grants answered, per refresh token sent. */
  readonly refreshes: string[];
  /** Every Authorization header the stand-in saw (to prove what Lore sent). */
  readonly authorizations: string[];
  close(): Promise<void>;
}

export const GOOD_TOKEN = 'stand-in-good-token-0123456789';
export const FRESH_ACCESS_TOKEN = 'stand-in-fresh-access-token-abcdef';
export const LIVE_REFRESH_TOKEN = 'stand-in-refresh-token-live-123456';

async function bodyOf(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startProviderStandIn(): Promise<ProviderStandIn> {
  const refreshes: string[] = [];
  const authorizations: string[] = [];
  const server: Server = createServer((request, response) => {
    void (async () => {
      const auth = request.headers.authorization ?? '';
      authorizations.push(auth);
      const json = (status: number, body: unknown): void => {
        response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      };
      const path = (request.url ?? '/').split('?')[0];
      if (path === '/health') return json(auth === `Bearer ${GOOD_TOKEN}` ? 200 : 401, { ok: auth === `Bearer ${GOOD_TOKEN}` });
      if (path === '/oauth/token' && request.method === 'POST') {
        const form = new URLSearchParams(await bodyOf(request));
        const token = form.get('refresh_token') ?? '';
        refreshes.push(token);
        // Slow enough that concurrent tests overlap while the refresh is in flight.
        await new Promise((resolve) => setTimeout(resolve, 300));
        if (form.get('grant_type') !== 'refresh_token' || token !== LIVE_REFRESH_TOKEN) return json(400, { error: 'invalid_grant', error_description: 'The refresh token is invalid' });
        return json(200, { access_token: FRESH_ACCESS_TOKEN, token_type: 'Bearer', expires_in: 7200, refresh_token: `${LIVE_REFRESH_TOKEN}-rotated` });
      }
      if (path === '/api/v4/user') return json(auth === `Bearer ${FRESH_ACCESS_TOKEN}` || auth === `Bearer ${GOOD_TOKEN}` ? 200 : 401, { id: 1 });
      json(404, { error: 'not found' });
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    refreshes,
    authorizations,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
