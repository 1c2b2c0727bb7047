import { z } from 'zod';
import { envInt } from '@lore/platform/kernel';

/** One of Lore's registered OAuth apps (CONNECTION_OAUTH_CLIENTS). */
export interface OAuthApp {
  readonly client_id: string;
  readonly client_secret?: string | undefined;
  /**
   * The configuration the app is registered for, for entries whose endpoints come from it (a
   * self-hosted GitLab's `base_url`, a Microsoft `tenant_id`): connect sessions use these values,
   * and the app's secret is sent only to the token endpoint they name.
   */
  readonly config?: Readonly<Record<string, string>> | undefined;
}

/** Lore's registered OAuth apps, per catalog entry id: what the connect flow and refreshing a user's token need besides the token. */
const OAuthClients = z
  .string()
  .optional()
  .transform((text, ctx): Record<string, OAuthApp> => {
    if (text === undefined || text.trim() === '') return {};
    const shape = z.record(
      z.string(),
      z.object({ client_id: z.string().min(1), client_secret: z.string().min(1).optional(), config: z.record(z.string(), z.string()).optional() }).strict(),
    );
    try {
      const parsed = shape.safeParse(JSON.parse(text));
      if (parsed.success) return parsed.data;
    } catch {
      // reported below
    }
    ctx.addIssue({ code: 'custom', message: 'must be a JSON object {"<integration id>": {"client_id": "...", "client_secret": "...", "config": {...}}}' });
    return z.NEVER;
  });

/** An absolute http(s) URL with no query, fragment or credentials, or null. */
function plainHttpUrl(text: string): URL | null {
  try {
    const url = new URL(text);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.search === '' && url.hash === '' && url.username === '' && url.password === '' ? url : null;
  } catch {
    return null;
  }
}

/** Lore's public base URL (scheme, host, optional path prefix), without a trailing slash. */
const PublicBaseUrl = z
  .string()
  .optional()
  .transform((text, ctx): string | null => {
    if (text === undefined || text.trim() === '') return null;
    const url = plainHttpUrl(text.trim());
    if (url !== null) return url.toString().replace(/\/+$/, '');
    ctx.addIssue({ code: 'custom', message: 'must be an absolute http(s) URL without query, fragment or credentials, e.g. https://lore.example.com' });
    return z.NEVER;
  });

/** Where a connect session may send the user back: absolute http(s) URLs, comma-separated. */
const RedirectUrls = z
  .string()
  .optional()
  .transform((text, ctx): string[] => {
    if (text === undefined || text.trim() === '') return [];
    const urls = text.split(',').map((part) => part.trim()).filter(Boolean);
    const bad = urls.filter((u) => plainHttpUrl(u) === null);
    if (bad.length === 0 && urls.length <= 100) return urls;
    ctx.addIssue({ code: 'custom', message: `must be up to 100 comma-separated absolute http(s) URLs without query, fragment or credentials (not: ${bad.join(', ')})` });
    return z.NEVER;
  });

/** The retry delays after the first attempt (the Standard Webhooks recommendation's shape: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h). */
const RetrySchedule = z
  .string()
  .optional()
  .transform((text, ctx): number[] => {
    if (text === undefined || text.trim() === '') return [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];
    const delays = text.split(',').map((part) => Number(part.trim()));
    if (delays.length > 0 && delays.length <= 20 && delays.every((d) => Number.isInteger(d) && d > 0)) return delays;
    ctx.addIssue({ code: 'custom', message: 'must be 1 to 20 comma-separated positive integers (milliseconds)' });
    return z.NEVER;
  });

export interface WebhookSettings {
  readonly retryScheduleMs: readonly number[];
  readonly timeoutMs: number;
  readonly disableAfterMs: number;
  readonly disableMinFailures: number;
  readonly retentionMs: number;
  readonly pollMs: number;
  readonly perWorkspace: number;
}

export interface ConnectSettings {
  /** null: connect sessions are refused (503) until LORE_PUBLIC_BASE_URL is set. */
  readonly publicBaseUrl: string | null;
  readonly redirectUrls: readonly string[];
  readonly defaultTtlMs: number;
  readonly maxTtlMs: number;
}

/** Lore's limits and timings for connections (SPEC §8 gives only the label's); README, Configuration. */
export interface ConnectionLimits {
  readonly maxConfigBytes: number;
  readonly maxCredentialsBytes: number;
}

export const connectionsConfig = z
  .object({
    CONNECTION_CONFIG_MAX_BYTES: envInt(16 * 1024),
    CONNECTION_CREDENTIALS_MAX_BYTES: envInt(16 * 1024),
    /** One verification request (and each token request) gives up after this long. */
    CONNECTION_TEST_TIMEOUT_MS: envInt(10_000),
    /** A test still `testing` after this long was cut off (a crash): a new test may start. */
    CONNECTION_STALE_TEST_MS: envInt(60_000),
    /** A credential older than this that a crash left attached to a connection not using it is let go by the sweep. */
    CONNECTION_SWEEP_GRACE_MS: envInt(5 * 60_000),
    CONNECTION_OAUTH_CLIENTS: OAuthClients,
    /** Lore's address as the user's browser and the providers see it: connect URLs and the OAuth callback are built on it. */
    LORE_PUBLIC_BASE_URL: PublicBaseUrl,
    /** Where connect sessions may send the user back (README, "Connect sessions (OAuth)"). */
    CONNECT_REDIRECT_URLS: RedirectUrls,
    /** A connect session's life when its request names none; a request may ask for at most CONNECT_SESSION_MAX_TTL_MS. */
    CONNECT_SESSION_TTL_MS: envInt(10 * 60_000),
    CONNECT_SESSION_MAX_TTL_MS: envInt(60 * 60_000),
    /** How often the health check runs over every active or failing connection (README, "Health over time"). */
    CONNECTION_HEALTH_INTERVAL_MS: envInt(15 * 60_000),
    /** How many connections the health check verifies at once, across all workspaces. */
    CONNECTION_HEALTH_CONCURRENCY: envInt(4),
    /** An OAuth access token expiring within this long is refreshed by the health check before it expires. */
    CONNECTION_REFRESH_AHEAD_MS: envInt(5 * 60_000),
    /** Delays before each retry of a failed webhook delivery, in ms (jittered ±20 %): about 27 hours in all. */
    WEBHOOK_RETRY_SCHEDULE_MS: RetrySchedule,
    /** One delivery attempt gives up after this long (the receiver should answer 2xx fast and work later). */
    WEBHOOK_TIMEOUT_MS: envInt(15_000),
    /** An endpoint failing without a single success for this long (and WEBHOOK_DISABLE_MIN_FAILURES attempts) is disabled. */
    WEBHOOK_DISABLE_AFTER_MS: envInt(5 * 24 * 3_600_000),
    WEBHOOK_DISABLE_MIN_FAILURES: envInt(10),
    /** Delivered and failed deliveries are kept this long in the delivery log. */
    WEBHOOK_DELIVERY_RETENTION_DAYS: envInt(30),
    /** How often the sender looks for due retries (new deliveries wake it at once). */
    WEBHOOK_POLL_MS: envInt(1_000),
    WEBHOOKS_PER_WORKSPACE: envInt(50),
  })
  .refine((e) => e.CONNECTION_STALE_TEST_MS > 4 * e.CONNECTION_TEST_TIMEOUT_MS + 5_000, {
    message: 'CONNECTION_STALE_TEST_MS must exceed the longest a test may run (4 × CONNECTION_TEST_TIMEOUT_MS + 5 s), or a running test could be taken for an interrupted one',
  })
  .transform((e) => ({
    limits: { maxConfigBytes: e.CONNECTION_CONFIG_MAX_BYTES, maxCredentialsBytes: e.CONNECTION_CREDENTIALS_MAX_BYTES } satisfies ConnectionLimits,
    testTimeoutMs: e.CONNECTION_TEST_TIMEOUT_MS,
    staleTestMs: e.CONNECTION_STALE_TEST_MS,
    sweepGraceMs: e.CONNECTION_SWEEP_GRACE_MS,
    oauthClients: e.CONNECTION_OAUTH_CLIENTS,
    connect: {
      publicBaseUrl: e.LORE_PUBLIC_BASE_URL,
      redirectUrls: e.CONNECT_REDIRECT_URLS,
      defaultTtlMs: e.CONNECT_SESSION_TTL_MS,
      maxTtlMs: e.CONNECT_SESSION_MAX_TTL_MS,
    } satisfies ConnectSettings,
    health: { intervalMs: e.CONNECTION_HEALTH_INTERVAL_MS, concurrency: e.CONNECTION_HEALTH_CONCURRENCY, refreshAheadMs: e.CONNECTION_REFRESH_AHEAD_MS },
    webhooks: {
      retryScheduleMs: e.WEBHOOK_RETRY_SCHEDULE_MS,
      timeoutMs: e.WEBHOOK_TIMEOUT_MS,
      disableAfterMs: e.WEBHOOK_DISABLE_AFTER_MS,
      disableMinFailures: e.WEBHOOK_DISABLE_MIN_FAILURES,
      retentionMs: e.WEBHOOK_DELIVERY_RETENTION_DAYS * 24 * 3_600_000,
      pollMs: e.WEBHOOK_POLL_MS,
      perWorkspace: e.WEBHOOKS_PER_WORKSPACE,
    } satisfies WebhookSettings,
  }));
export type ConnectionsConfig = z.output<typeof connectionsConfig>;
