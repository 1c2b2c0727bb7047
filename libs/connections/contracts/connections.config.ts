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
  }));
export type ConnectionsConfig = z.output<typeof connectionsConfig>;
