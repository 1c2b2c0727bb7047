import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import Fastify, { type FastifyInstance } from 'fastify';
import { CONSOLE_CSP, registerConsoleRoutes } from './console.routes';

/** The console's files as the gateway serves them, from a directory laid out as Vite builds it. */
describe('console routes', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lore-console-files-'));
  const INDEX = '<!doctype html><script type="module" src="/console/assets/index-abc123.js"></script>';
  let app: FastifyInstance;

  beforeAll(async () => {
    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'index.html'), INDEX);
    writeFileSync(join(dir, 'assets', 'index-abc123.js'), 'console.log("console");');
    app = Fastify({ routerOptions: { ignoreTrailingSlash: true } });
    registerConsoleRoutes(app, dir);
    await app.ready();
  });
  afterAll(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it.each(['/console', '/console/', '/console/knowledge/col-1/contents', '/console/assets'])('answers %s with the page, its CSP, and no caching', async (url) => {
    const reply = await app.inject({ url });
    expect(reply.statusCode).toBe(200);
    expect(reply.body).toBe(INDEX);
    expect(reply.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(reply.headers['content-security-policy']).toBe(CONSOLE_CSP);
    expect(CONSOLE_CSP).toContain("script-src 'self'");
    expect(reply.headers['cache-control']).toBe('no-cache');
    expect(reply.headers['x-content-type-options']).toBe('nosniff');
  });

  it('serves a hashed asset for a year, gzipped when asked', async () => {
    const plain = await app.inject({ url: '/console/assets/index-abc123.js' });
    expect(plain.statusCode).toBe(200);
    expect(plain.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(plain.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body).toBe('console.log("console");');
    const gzipped = await app.inject({ url: '/console/assets/index-abc123.js', headers: { 'accept-encoding': 'gzip, deflate, br' } });
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gzipped.rawPayload).toString()).toBe('console.log("console");');
  });

  it.each(['/console/assets/missing.js', '/console/assets/..%2Findex.html', '/console/assets/%2E%2E%2F%2E%2E%2Fpackage.json'])('answers 404 in the {detail} shape for %s: only built files are served', async (url) => {
    const reply = await app.inject({ url });
    expect(reply.statusCode).toBe(404);
    expect(reply.json()).toEqual({ detail: 'Not Found' });
  });

  it('says the console is not built when its directory has no page', async () => {
    const empty = Fastify();
    registerConsoleRoutes(empty, join(dir, 'nowhere'));
    const reply = await empty.inject({ url: '/console/' });
    expect(reply.statusCode).toBe(404);
    expect(reply.json()).toEqual({ detail: expect.stringMatching(/The console is not built .*run npm run build/) });
    await empty.close();
  });
});
