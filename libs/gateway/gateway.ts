import { randomUUID } from 'node:crypto';
import { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { FastifyAdapter } from '@nestjs/platform-fastify';
import type { Logger } from 'pino';
import type { EventFeed, Transport } from '@lore/platform/transport/port';
import { MemoryRateBucketStore, type RateBucketStore } from '@lore/platform/kernel';
import { errorBody, type HttpRoute, type IntegrationEventsSpec } from '@lore/platform/http';
import { JwtVerifier, jwtConfigurationWarning, type JwtSettings } from './auth/jwt-verifier';
import { Authenticator } from './auth/authenticator';
import type { RoleClaimSettings } from './auth/role-claim';
import { registerRoutes } from './http/register-routes';
import { useJsonBodyParser } from './http/json-body';
import { registerUploadRoutes } from './http/multipart-upload';
import { answerClientError } from './http/client-errors';
import { sendError } from './http/error-replies';
import { allowedMethods } from './http/method-not-allowed';
import { registerSystemRoutes } from './routes/system.routes';
import { gatewayAsyncApiDocument } from './routes/asyncapi-document';
import { eventsRoutes } from './routes/events.routes';
import { EventIds } from './http/event-ids';
import { adminRoutes } from './routes/admin.routes';
import { auditRoutes } from './routes/audit.routes';
import { EventStreams, type EventStreamLimits } from './http/event-stream';
import { observeRequests, requestTraceFields } from './http/request-telemetry';
import { countRateLimitRefusal } from '@lore/platform/telemetry';
import { registerMetricsRoute } from './routes/metrics.routes';
import { registerMcpRoute } from './routes/mcp.route';
import { registerConsoleRoutes } from './routes/console.routes';
import { RequestRateLimits, type RateLimitSettings } from './http/request-rate-limits';

/** What the HTTP edge is configured with; the process that hosts it reads it from the environment. */
export interface GatewayConfig {
  readonly auth: JwtSettings & RoleClaimSettings;
  readonly trustProxy: boolean;
  readonly maxBodyBytes: number;
  /** Bound on a request to a context service (then 503). */
  readonly requestTimeoutMs: number;
  /** NATS_URL and NATS_SUBJECT_PREFIX: where `/asyncapi.json` says integration events are published. */
  readonly natsUrl?: string | undefined;
  readonly natsSubjectPrefix?: string;
  /** Comment lines on idle event streams (`GET /api/v1/events`) keep proxies from closing them. */
  readonly eventsHeartbeatMs: number;
  /** EVENTS_MAX_STREAMS_*: open event streams per caller and per workspace in this process (absent: 10 and 100). */
  readonly eventStreamLimits?: EventStreamLimits;
  /** METRICS_TOKEN: when set, `/metrics` asks for it as a bearer token. */
  readonly metrics?: { readonly token?: string | undefined };
  /** Request rates per caller and per workspace (RATE_LIMIT_*, LORE_WORKSPACE_LIMITS). */
  readonly rateLimits: RateLimitSettings;
  /** LORE_CHECK_REPLIES: every success reply is parsed with its route's response schema; a mismatch answers 500 (on in tests). */
  readonly checkReplies?: boolean;
}

/** What configureGateway is given besides its configuration. */
export interface GatewayOptions {
  readonly config: GatewayConfig;
  readonly transport: Transport;
  readonly edges: readonly ComposedEdge[];
  readonly feed: EventFeed;
  /** The secret SSE event ids are sealed with (a key is derived from it): the same on every gateway (see loadEventIdSecret). */
  readonly eventIdSecret: Buffer;
  /** Where rate-limit buckets live: shared by every gateway (NATS key-value) or, by default, in this process. */
  readonly rateBuckets?: RateBucketStore;
}

/** One context's edge as the gateway composes it: its name (checked in /ready), its routes and the integration events it documents. */
export interface ComposedEdge {
  readonly name: string;
  readonly routes: readonly HttpRoute[];
  readonly events?: readonly IntegrationEventsSpec[];
}

/**
 * Longest path parameter the router matches (Fastify's default is 100, answered with its own
 * 414). Node's default `maxHeaderSize` (16 KiB, request line included) bounds URLs anyway, so
 * long ids reach the routes' zod validation (422/404) instead; anything longer still gets 414
 * in the `{detail}` shape.
 */
export const MAX_PATH_PARAM_CHARS = 16_384;

/**
 * Fastify settings the gateway needs from construction: body limit, request ids, proxy trust,
 * logger, and the `{detail}` shape for the errors Fastify and Node answer before any hook runs
 * (malformed URLs, over-long parameters, oversized headers, unparsable requests).
 */
export function gatewayServerOptions(config: GatewayConfig, logger: Logger): ConstructorParameters<typeof FastifyAdapter>[0] {
  return {
    bodyLimit: config.maxBodyBytes,
    trustProxy: config.trustProxy,
    requestIdHeader: 'x-request-id',
    genReqId: () => randomUUID(),
    loggerInstance: logger,
    // The gateway logs one line per request itself (onResponse), without query strings.
    logController: new LogController({ disableRequestLogging: true }),
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PATH_PARAM_CHARS },
    frameworkErrors: (error, request, reply) => {
      reply.header('X-Request-Id', request.id);
      void sendError(error, request as FastifyRequest, reply as FastifyReply);
    },
    clientErrorHandler: (error, socket) => answerClientError(error, socket, logger),
  };
}

/** Levels at which the per-request line is written. */
const INFO_LOGGED = new Set(['trace', 'debug', 'info']);

/** Wires the HTTP edge onto a Fastify instance: hooks, error shapes, every route. */
export function configureGateway(app: FastifyInstance, options: GatewayOptions): void {
  const { config, transport, edges, feed } = options;
  const authenticator = new Authenticator(new JwtVerifier(config.auth), transport, config.requestTimeoutMs, config.auth);
  const eventTypes = edges.flatMap((edge) => edge.events ?? []).flatMap((spec) => Object.keys(spec.published));
  const routes = [
    ...edges.flatMap((edge) => edge.routes),
    ...eventsRoutes({ feed, eventTypes, ids: new EventIds(options.eventIdSecret) }),
    ...adminRoutes({ contexts: edges.map((edge) => edge.name) }),
    ...auditRoutes({ contexts: edges.map((edge) => edge.name) }),
  ];
  const eventStreams = new EventStreams(config.eventsHeartbeatMs, config.eventStreamLimits);
  eventStreams.register(app);

  const jwtWarning = jwtConfigurationWarning(config.auth);
  if (jwtWarning !== null) app.log.warn(jwtWarning);

  observeRequests(app);
  // Callback hooks rather than async ones: they run on every request, and each async hook costs promises.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('X-Request-Id', request.id);
    // A known path asked with a method it does not declare: 405 before anything reads the
    // request (body parsing would otherwise answer first for methods such as QUERY).
    if (request.is404) {
      const allow = allowedMethods(request);
      if (allow.length > 0) {
        void reply.code(405).header('Allow', allow.join(', ')).send(errorBody('Method Not Allowed'));
        return;
      }
    }
    done();
  });
  // One line per request, without query strings or bodies: no memory text or secret reaches the log.
  app.addHook('onResponse', (request, reply, done) => {
    // Not even built when the level is above info (most deployments under load): it is per request.
    if (INFO_LOGGED.has(request.log.level)) request.log.info({ method: request.method, route: request.routeOptions.url, status: reply.statusCode, ms: Math.round(reply.elapsedTime * 10) / 10, ...requestTraceFields(request) }, 'request');
    done();
  });
  useJsonBodyParser(app);

  let lastStoreWarning = 0;
  // The in-process store answers at once: the limiter claims nothing ahead from it (exact buckets).
  const rateLimits = new RequestRateLimits(config.rateLimits, options.rateBuckets ?? new MemoryRateBucketStore(), {
    onRefused: countRateLimitRefusal,
    onStoreError: (error) => {
      // Every request fails while NATS is away: one line a minute says so.
      const now = Date.now();
      if (now - lastStoreWarning < 60_000) return;
      lastStoreWarning = now;
      app.log.warn({ err: error }, 'rate-limit store failed: requests are admitted unlimited until it answers');
    },
  });
  const routeDeps = { authenticator, transport, requestTimeoutMs: config.requestTimeoutMs, eventStreams, rateLimits, checkReplies: config.checkReplies ?? false };
  registerRoutes(app, routes.filter((route) => route.upload === undefined), routeDeps);
  registerUploadRoutes(app, (scope) => registerRoutes(scope, routes.filter((route) => route.upload !== undefined), routeDeps));
  registerMcpRoute(app, { authenticator, rateLimits });
  registerMetricsRoute(app, config.metrics?.token);
  registerConsoleRoutes(app);
  registerSystemRoutes(app, { transport, contexts: edges.map((edge) => edge.name), routes, asyncapi: gatewayAsyncApiDocument(config, edges) });
}
