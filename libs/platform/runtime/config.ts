import { resolve } from 'node:path';
import { z } from 'zod';
import { envFlag as flag, envInt as int, envOptional as optional, workspaceLimitsEnv } from '@lore/platform/kernel';
import { parseEgressAllowList, parseEgressProxyUrl } from '@lore/platform/egress/node';

/**
 * The platform's environment variables, with their defaults (the README's table lists the
 * same). Each context reads its own slice (`config` of its definition and edge).
 */
const count = (fallback: number) => z.coerce.number().int().min(0).default(fallback);

const Env = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().default('0.0.0.0'),
  DATA_DIR: z.string().default('./data'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  LORE_MASTER_KEY: optional,
  /** The secret SSE event ids are sealed with (32+ bytes, base64 or hex): the same on every gateway. */
  LORE_EVENT_ID_SECRET: optional,
  AUTH_JWT_SECRET: optional,
  AUTH_JWKS_URL: optional,
  AUTH_JWT_ISSUER: optional,
  AUTH_JWT_AUDIENCE: optional,
  /** Accept JWTs without `exp` (never expiring): only for identity providers that cannot issue them. */
  AUTH_JWT_ALLOW_NO_EXP: flag,
  /** Longest validity a JWT may have (exp − iat, or exp − now without iat); 0: no bound. */
  AUTH_JWT_MAX_LIFETIME_SECONDS: optional.pipe(z.coerce.number<string | undefined>().int().min(0).default(24 * 60 * 60)),
  /** Claim (a name or a dotted path such as `realm_access.roles`) that marks workspace administrators. */
  AUTH_ADMIN_CLAIM: optional.pipe(z.string().regex(/^[^.]+(\.[^.]+)*$/, 'a claim name or a dotted path').default('roles')),
  /** The value of AUTH_ADMIN_CLAIM (a string, or an array containing it) that makes the holder an administrator. */
  AUTH_ADMIN_VALUE: optional.pipe(z.string().default('admin')),
  TRUST_PROXY: flag,
  NATS_URL: optional,
  NATS_SUBJECT_PREFIX: z.string().regex(/^[A-Za-z0-9_-]+$/).default('lore'),
  /** How long the JetStream stream `<PREFIX>_EVENTS` keeps integration events for downstream consumers. */
  EVENTS_STREAM_MAX_AGE_HOURS: int(7 * 24),
  /** Interval of the comment lines on idle `GET /api/v1/events` streams. */
  EVENTS_HEARTBEAT_MS: int(15_000),
  /** Open `GET /api/v1/events` streams per API key or JWT user, and per workspace, in one gateway process; 0 turns the cap off. */
  EVENTS_MAX_STREAMS_PER_CALLER: count(10),
  EVENTS_MAX_STREAMS_PER_WORKSPACE: count(100),
  EVENTSTORE_URL: optional,
  MONGODB_URL: optional,
  MONGODB_DATABASE_PREFIX: z.string().default('lore'),
  QDRANT_URL: optional,
  QDRANT_API_KEY: optional,
  QDRANT_COLLECTION_PREFIX: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,15}$/).default('lore'),
  REQUEST_TIMEOUT_MS: int(10_000),
  READ_YOUR_WRITES_TIMEOUT_MS: int(5_000),
  MAX_BODY_BYTES: int(1024 * 1024),
  /** Private, loopback or link-local addresses outbound requests may reach (connection tests): IPs, CIDRs, host names. */
  LORE_EGRESS_ALLOW: optional,
  /** A forward proxy (egress gateway) every outbound request goes through, CONNECT to the vetted address. */
  LORE_EGRESS_PROXY: optional,
  /** A service process's own `/metrics` port (unset: none); the gateway serves `/metrics` on PORT. */
  METRICS_PORT: z.preprocess((v) => (v === '' ? undefined : v), z.coerce.number().int().min(0).max(65535).optional()),
  /** Where a service's metrics port listens (default: HOST). */
  METRICS_HOST: optional,
  /** When set, `/metrics` (gateway and services) answers only `Authorization: Bearer <METRICS_TOKEN>`. */
  METRICS_TOKEN: optional,
  /** Requests a minute per API key or JWT user, and how many may come at once; 0 turns the limit off. */
  RATE_LIMIT_CALLER_PER_MINUTE: count(6_000),
  RATE_LIMIT_CALLER_BURST: count(2_000),
  /** Requests a minute per workspace (all its callers together), and how many may come at once; 0 turns the limit off. */
  RATE_LIMIT_WORKSPACE_PER_MINUTE: count(24_000),
  RATE_LIMIT_WORKSPACE_BURST: count(8_000),
  /** Distributed: how long units a gateway claims ahead from the shared buckets stay usable (the limits' tolerance). */
  RATE_LIMIT_LEASE_MS: count(100),
  /** Per-workspace rates and quotas: JSON `{"<workspace>": {"requests_per_minute": n, "memories": n, ...}}`. */
  LORE_WORKSPACE_LIMITS: workspaceLimitsEnv,
  /** Parse every HTTP success reply with its route's response schema; a mismatch answers 500 (set by the test setup). */
  LORE_CHECK_REPLIES: flag,
});

export type LoreConfig = ReturnType<typeof loadConfig>;

export function loadConfig(env: NodeJS.ProcessEnv = process.env) {
  const parsed = Env.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`Invalid configuration: ${problems}`);
  }
  const e = parsed.data;
  return {
    port: e.PORT,
    host: e.HOST,
    dataDir: resolve(e.DATA_DIR),
    logLevel: e.LOG_LEVEL,
    masterKey: e.LORE_MASTER_KEY,
    eventIdSecret: e.LORE_EVENT_ID_SECRET,
    auth: {
      jwtSecret: e.AUTH_JWT_SECRET,
      jwksUrl: e.AUTH_JWKS_URL,
      issuer: e.AUTH_JWT_ISSUER,
      audience: e.AUTH_JWT_AUDIENCE,
      allowNoExp: e.AUTH_JWT_ALLOW_NO_EXP,
      maxLifetimeSeconds: e.AUTH_JWT_MAX_LIFETIME_SECONDS,
      adminClaim: e.AUTH_ADMIN_CLAIM,
      adminValue: e.AUTH_ADMIN_VALUE,
    },
    trustProxy: e.TRUST_PROXY,
    natsUrl: e.NATS_URL,
    natsSubjectPrefix: e.NATS_SUBJECT_PREFIX,
    eventsStreamMaxAgeHours: e.EVENTS_STREAM_MAX_AGE_HOURS,
    eventsHeartbeatMs: e.EVENTS_HEARTBEAT_MS,
    eventStreamLimits: { perCaller: e.EVENTS_MAX_STREAMS_PER_CALLER, perWorkspace: e.EVENTS_MAX_STREAMS_PER_WORKSPACE },
    eventStoreUrl: e.EVENTSTORE_URL,
    mongoUrl: e.MONGODB_URL,
    mongoDatabasePrefix: e.MONGODB_DATABASE_PREFIX,
    qdrantUrl: e.QDRANT_URL,
    qdrantApiKey: e.QDRANT_API_KEY,
    qdrantCollectionPrefix: e.QDRANT_COLLECTION_PREFIX,
    requestTimeoutMs: e.REQUEST_TIMEOUT_MS,
    readYourWritesTimeoutMs: e.READ_YOUR_WRITES_TIMEOUT_MS,
    maxBodyBytes: e.MAX_BODY_BYTES,
    egressAllow: parseEgressAllowList(e.LORE_EGRESS_ALLOW),
    egressProxyUrl: parseEgressProxyUrl(e.LORE_EGRESS_PROXY),
    metrics: { port: e.METRICS_PORT, host: e.METRICS_HOST ?? e.HOST, token: e.METRICS_TOKEN },
    rateLimits: {
      caller: { perMinute: e.RATE_LIMIT_CALLER_PER_MINUTE, burst: e.RATE_LIMIT_CALLER_BURST },
      workspace: { perMinute: e.RATE_LIMIT_WORKSPACE_PER_MINUTE, burst: e.RATE_LIMIT_WORKSPACE_BURST },
      leaseMs: e.RATE_LIMIT_LEASE_MS,
      overrides: e.LORE_WORKSPACE_LIMITS,
    },
    checkReplies: e.LORE_CHECK_REPLIES,
  };
}

/** Parses a context's configuration slice from the same environment, with the same kind of message. */
export function loadContextConfig<C>(context: { readonly name: string; readonly config: z.ZodType<C> }, env: NodeJS.ProcessEnv = process.env): C {
  const parsed = context.config.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`Invalid configuration of ${context.name}: ${problems}`);
  }
  return parsed.data;
}
