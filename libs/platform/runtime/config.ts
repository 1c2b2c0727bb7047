import { resolve } from 'node:path';
import { z } from 'zod';

const int = (fallback: number) => z.coerce.number().int().positive().default(fallback);
const flag = z
  .enum(['true', 'false', '1', '0', 'yes', 'no', ''])
  .default('false')
  .transform((v) => v === 'true' || v === '1' || v === 'yes');
const optional = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()));

/** Every environment variable Lore reads, with its default (the README's table lists the same). */
const Env = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().default('0.0.0.0'),
  DATA_DIR: z.string().default('./data'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  LORE_MASTER_KEY: optional,
  AUTH_JWT_SECRET: optional,
  AUTH_JWKS_URL: optional,
  AUTH_JWT_ISSUER: optional,
  AUTH_JWT_AUDIENCE: optional,
  TRUST_PROXY: flag,
  NATS_URL: optional,
  NATS_SUBJECT_PREFIX: z.string().regex(/^[A-Za-z0-9_-]+$/).default('lore'),
  EVENTSTORE_URL: optional,
  MONGODB_URL: optional,
  MONGODB_DATABASE_PREFIX: z.string().default('lore'),
  REQUEST_TIMEOUT_MS: int(10_000),
  READ_YOUR_WRITES_TIMEOUT_MS: int(5_000),
  MAX_BODY_BYTES: int(1024 * 1024),
  MEMORY_MAX_CHARS: int(10_000),
  MEMORY_MAX_TOPICS: int(20),
  MEMORY_TOPIC_MAX_CHARS: int(100),
  MEMORY_METADATA_MAX_BYTES: int(16 * 1024),
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
    auth: { jwtSecret: e.AUTH_JWT_SECRET, jwksUrl: e.AUTH_JWKS_URL, issuer: e.AUTH_JWT_ISSUER, audience: e.AUTH_JWT_AUDIENCE },
    trustProxy: e.TRUST_PROXY,
    natsUrl: e.NATS_URL,
    natsSubjectPrefix: e.NATS_SUBJECT_PREFIX,
    eventStoreUrl: e.EVENTSTORE_URL,
    mongoUrl: e.MONGODB_URL,
    mongoDatabasePrefix: e.MONGODB_DATABASE_PREFIX,
    requestTimeoutMs: e.REQUEST_TIMEOUT_MS,
    readYourWritesTimeoutMs: e.READ_YOUR_WRITES_TIMEOUT_MS,
    maxBodyBytes: e.MAX_BODY_BYTES,
    memoryLimits: {
      maxMemoryChars: e.MEMORY_MAX_CHARS,
      maxTopics: e.MEMORY_MAX_TOPICS,
      maxTopicChars: e.MEMORY_TOPIC_MAX_CHARS,
      maxMetadataBytes: e.MEMORY_METADATA_MAX_BYTES,
    },
  };
}
