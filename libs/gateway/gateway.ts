import { randomUUID } from 'node:crypto';
import { LogController, type FastifyInstance } from 'fastify';
import type { FastifyAdapter } from '@nestjs/platform-fastify';
import type { Logger } from 'pino';
import type { Transport } from '@lore/platform/transport/port';
import type { LoreConfig } from '@lore/platform/runtime';
import { JwtVerifier } from './auth/jwt-verifier';
import { Authenticator } from './auth/authenticator';
import { registerRoutes } from './http/register-routes';
import { useJsonBodyParser } from './http/json-body';
import { apiKeyRoutes } from './routes/api-keys.routes';
import { memoryRoutes } from './routes/memories.routes';
import { registerSystemRoutes } from './routes/system.routes';

/** The contexts whose services the gateway talks to (and checks in /ready). */
export const GATEWAY_CONTEXTS = ['keys', 'memory'] as const;

/** Fastify settings the gateway needs from construction: body limit, request ids, proxy trust, logger. */
export function gatewayServerOptions(config: LoreConfig, logger: Logger): ConstructorParameters<typeof FastifyAdapter>[0] {
  return {
    bodyLimit: config.maxBodyBytes,
    trustProxy: config.trustProxy,
    requestIdHeader: 'x-request-id',
    genReqId: () => randomUUID(),
    loggerInstance: logger,
    // The gateway logs one line per request itself (onResponse), without query strings.
    logController: new LogController({ disableRequestLogging: true }),
    routerOptions: { ignoreTrailingSlash: true },
  };
}

/** Wires the HTTP edge onto a Fastify instance: hooks, error shapes, every route. */
export function configureGateway(app: FastifyInstance, options: { config: LoreConfig; transport: Transport }): void {
  const { config, transport } = options;
  const authenticator = new Authenticator(new JwtVerifier(config.auth), transport);
  const routes = [...apiKeyRoutes(transport), ...memoryRoutes(transport, config.memoryLimits)];

  app.addHook('onRequest', async (request, reply) => {
    reply.header('X-Request-Id', request.id);
  });
  // One line per request, without query strings or bodies: no memory text or secret reaches the log.
  app.addHook('onResponse', async (request, reply) => {
    request.log.info({ method: request.method, route: request.routeOptions.url, status: reply.statusCode, ms: Math.round(reply.elapsedTime * 10) / 10 }, 'request');
  });
  useJsonBodyParser(app);

  registerRoutes(app, routes, authenticator);
  registerSystemRoutes(app, { transport, contexts: GATEWAY_CONTEXTS, routes });
}
