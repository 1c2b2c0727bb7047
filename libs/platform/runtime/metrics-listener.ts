import { createServer, type Server, type ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { renderMetrics, scrapeAllowed } from '@lore/platform/telemetry';
import type { LoreConfig } from './config';
import type { Lifecycle } from './lifecycle.module';

/**
 * `GET /metrics` of a service process, on its own port (METRICS_PORT; METRICS_HOST, by
 * default HOST): a service has no HTTP server otherwise. Nothing else is served there. None
 * when METRICS_PORT is unset. The gateway (and the standalone app) serve `/metrics` on their
 * HTTP port instead.
 */
export function metricsListener(config: LoreConfig, logger: Logger): Lifecycle & { port(): number | null } {
  let server: Server | null = null;
  return {
    async start() {
      if (config.metrics.port === undefined) return;
      const listening = createServer((request, response) => {
        const path = (request.url ?? '').split('?')[0];
        if (path !== '/metrics') return reply(response, 404, { detail: 'Not Found' });
        if (request.method !== 'GET' && request.method !== 'HEAD') return reply(response, 405, { detail: 'Method Not Allowed' }, { allow: 'GET, HEAD' });
        if (!scrapeAllowed(request.headers.authorization, config.metrics.token)) return reply(response, 401, { detail: 'Not authenticated' }, { 'www-authenticate': 'Bearer' });
        renderMetrics().then(
          ({ contentType, body }) => {
            response.writeHead(200, { 'content-type': contentType });
            response.end(request.method === 'HEAD' ? undefined : body);
          },
          (error: unknown) => {
            logger.error({ err: error }, 'metrics could not be collected');
            reply(response, 500, { detail: 'Internal Server Error' });
          },
        );
      });
      await new Promise<void>((resolve, reject) => {
        listening.once('error', reject);
        listening.listen(config.metrics.port, config.metrics.host, () => resolve());
      });
      server = listening;
      logger.info({ port: this.port(), host: config.metrics.host }, 'metrics listening');
    },
    async stop() {
      const closing = server;
      server = null;
      if (closing !== null) await new Promise<void>((resolve) => closing.close(() => resolve()));
    },
    port() {
      const address = server?.address();
      return typeof address === 'object' && address !== null ? address.port : null;
    },
  };
}

function reply(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
  response.end(JSON.stringify(body));
}
