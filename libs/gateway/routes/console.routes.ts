import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { errorBody } from '@lore/platform/http';

/**
 * What the console's page may load: its own scripts, styles and images, and the API of the
 * origin that served it (fetch, the event stream). No inline script or style, no other origin,
 * never framed. Vite's build emits no inline code (apps/console/vite.config.mjs).
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const CONTENT_TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  svg: 'image/svg+xml',
  png: 'image/png',
  woff2: 'font/woff2',
  json: 'application/json',
};

interface ConsoleFile {
  readonly type: string;
  readonly body: Buffer;
  /** Gzipped once at start: the files are small and every browser asks for gzip. */
  readonly gzipped: Buffer;
}

/**
 * Where the built console is: dist/console beside the bundle (dist/standalone.js,
 * dist/gateway.js), or the repository's dist/console when running from the sources (tests,
 * after `npm run build`).
 */
export function consoleDirectory(): string {
  const bundled = join(__dirname, 'console');
  return existsSync(bundled) ? bundled : join(__dirname, '..', '..', '..', 'dist', 'console');
}

function readConsole(dir: string): { index: ConsoleFile; assets: Map<string, ConsoleFile> } | null {
  if (!existsSync(join(dir, 'index.html'))) return null;
  const load = (path: string): ConsoleFile => {
    const body = readFileSync(path);
    return { type: CONTENT_TYPES[path.split('.').pop() ?? ''] ?? 'application/octet-stream', body, gzipped: gzipSync(body) };
  };
  const assetsDir = join(dir, 'assets');
  const names = existsSync(assetsDir) ? readdirSync(assetsDir) : [];
  return { index: load(join(dir, 'index.html')), assets: new Map(names.map((name) => [name, load(join(assetsDir, name))])) };
}

function sendFile(request: FastifyRequest, reply: FastifyReply, file: ConsoleFile): FastifyReply {
  const gzip = /\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''));
  void reply.type(file.type).header('x-content-type-options', 'nosniff').header('vary', 'Accept-Encoding');
  if (gzip) void reply.header('content-encoding', 'gzip');
  return reply.send(gzip ? file.gzipped : file.body);
}

/**
 * The web console at /console: hashed assets under /console/assets/ (cached for a year, they
 * never change under a name), and index.html for every other path under /console, so that the
 * single-page app's own routes (/console/knowledge/…) load on reload or from a link. The files
 * are read once when the gateway starts; only those names are ever served (no path from the
 * request reaches the file system). Open: the page signs in itself, against the API.
 */
export function registerConsoleRoutes(app: FastifyInstance, dir: string = consoleDirectory()): void {
  const files = readConsole(dir);
  const page = (request: FastifyRequest, reply: FastifyReply) => {
    if (files === null) return reply.code(404).send(errorBody(`The console is not built (no ${join(dir, 'index.html')}): run npm run build`));
    // Always revalidated: it names the current hashed assets.
    void reply.header('cache-control', 'no-cache').header('content-security-policy', CONSOLE_CSP).header('referrer-policy', 'no-referrer');
    return sendFile(request, reply, files.index);
  };
  app.get('/console', page);
  app.get<{ Params: { file: string } }>('/console/assets/:file', (request, reply) => {
    const file = files?.assets.get(request.params.file);
    if (file === undefined) return reply.code(404).send(errorBody('Not Found'));
    return sendFile(request, reply.header('cache-control', 'public, max-age=31536000, immutable'), file);
  });
  app.get('/console/*', page);
}
