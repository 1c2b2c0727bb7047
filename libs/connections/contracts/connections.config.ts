import { z } from 'zod';
import { envInt } from '@lore/platform/kernel';

/** Lore's registered OAuth apps, per catalog entry id: what refreshing a user's token needs besides the token. */
const OAuthClients = z
  .string()
  .optional()
  .transform((text, ctx): Record<string, { client_id: string; client_secret?: string | undefined }> => {
    if (text === undefined || text.trim() === '') return {};
    const shape = z.record(z.string(), z.object({ client_id: z.string().min(1), client_secret: z.string().min(1).optional() }).strict());
    try {
      const parsed = shape.safeParse(JSON.parse(text));
      if (parsed.success) return parsed.data;
    } catch {
      // reported below
    }
    ctx.addIssue({ code: 'custom', message: 'must be a JSON object {"<integration id>": {"client_id": "...", "client_secret": "..."}}' });
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
