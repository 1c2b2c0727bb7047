import type { FastifyInstance } from 'fastify';
import { renderMetrics, scrapeAllowed } from '@lore/platform/telemetry';

/**
 * `GET /metrics`: the Prometheus text format of this process (in the standalone app, of every
 * context too). Open unless METRICS_TOKEN is set; then only `Authorization: Bearer <token>`.
 * No tenant data is in it: labels are routes, message names, processors, models and hashed
 * workspace ids.
 */
export function registerMetricsRoute(app: FastifyInstance, token: string | undefined): void {
  app.get('/metrics', async (request, reply) => {
    if (!scrapeAllowed(request.headers.authorization, token)) return reply.code(401).header('WWW-Authenticate', 'Bearer').send({ detail: 'Not authenticated' });
    const { contentType, body } = await renderMetrics();
    return reply.type(contentType).send(body);
  });
}
