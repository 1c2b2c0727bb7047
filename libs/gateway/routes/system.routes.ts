import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { contextStatusMessage, send, type ContextStatus, type Transport } from '@lore/platform/transport/port';
import { buildOpenApiDocument, docsHtml, swaggerUiAssetPath, type AsyncApiDocument, type RouteSpec } from '@lore/platform/http';

const DOCS_ASSETS = new Set(['swagger-ui.css', 'swagger-ui-bundle.js', 'swagger-ui-standalone-preset.js', 'favicon-32x32.png']);
const CONTENT_TYPES: Record<string, string> = { css: 'text/css', js: 'application/javascript', png: 'image/png' };

/** The open endpoints: liveness, readiness, the OpenAPI document and its rendering, the AsyncAPI document. */
export function registerSystemRoutes(
  app: FastifyInstance,
  options: { transport: Transport; contexts: readonly string[]; routes: readonly RouteSpec[]; asyncapi: AsyncApiDocument },
): void {
  const openapi = buildOpenApiDocument({
    title: 'Lore',
    version: '0.1.0',
    description: 'Workspace knowledge, memory and integration service.',
    routes: options.routes,
  });

  app.get('/health', async () => ({ status: 'ok' }));

  app.get('/ready', async (request, reply) => {
    const contexts: Record<string, ContextStatus | { ready: false; error: string }> = {};
    await Promise.all(
      options.contexts.map(async (context) => {
        try {
          contexts[context] = await send(options.transport, contextStatusMessage(context), {}, { timeoutMs: 2_000, requestId: request.id });
        } catch (error) {
          contexts[context] = { ready: false, error: error instanceof Error ? error.message : String(error) };
        }
      }),
    );
    const ready = options.transport.isReady() && Object.values(contexts).every((c) => c.ready);
    // Parked events (a processor stepped past an event it failed on) leave every other stream
    // served: still ready (200), but degraded, with the counts per processor.
    const parked: Record<string, number> = {};
    for (const c of Object.values(contexts)) if ('parked' in c && c.parked !== undefined) Object.assign(parked, c.parked);
    const status = !ready ? 'not_ready' : Object.keys(parked).length > 0 ? 'degraded' : 'ready';
    return reply.code(ready ? 200 : 503).send({ status, transport: options.transport.isReady(), contexts, ...(Object.keys(parked).length > 0 ? { parked } : {}) });
  });

  app.get('/openapi.json', async () => openapi);
  // The integration events downstream systems may subscribe to: as open as /openapi.json.
  app.get('/asyncapi.json', async () => options.asyncapi);
  app.get('/docs', async (_request, reply) => reply.type('text/html').send(docsHtml('/openapi.json', '/docs/assets')));
  app.get<{ Params: { file: string } }>('/docs/assets/:file', async (request, reply) => {
    const file = request.params.file;
    if (!DOCS_ASSETS.has(file)) return reply.code(404).send({ detail: 'Not Found' });
    const body = await readFile(join(swaggerUiAssetPath(), file));
    return reply.type(CONTENT_TYPES[file.split('.').pop() ?? ''] ?? 'application/octet-stream').header('Cache-Control', 'public, max-age=86400').send(body);
  });
}
