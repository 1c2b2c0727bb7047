import { z } from 'zod';

export const API_KEY_STATUSES = ['active', 'inactive', 'revoked'] as const;

/** An API key as the API shows it: never its secret or any hash of it. */
export const ApiKeyRecord = z
  .object({
    id: z.string(),
    label: z.string(),
    workspace_id: z.string(),
    status: z.enum(API_KEY_STATUSES),
    permissions: z.array(z.string()),
    ip_whitelist: z.array(z.string()),
    collections: z.array(z.string()),
    created_by: z.string(),
    acts_for_others: z
      .boolean()
      .describe('Minted by a workspace administrator (or a key one minted): may name any user_id and use admin permissions. Otherwise the key acts only for created_by.'),
    created_at: z.string(),
    updated_at: z.string(),
    last_used_at: z.string().nullable(),
    expires_at: z.string().nullable(),
  })
  .meta({ id: 'ApiKeyRecord' });
export type ApiKeyRecord = z.infer<typeof ApiKeyRecord>;

/** Returned once, by creation: the only time the secret exists outside the caller. */
export const CreatedApiKey = ApiKeyRecord.extend({
  key: z.string().describe('The full bearer token: send it as `Authorization: Bearer <key>`'),
  secret: z.string(),
  hashed_secret: z.string().describe('SHA-256 of the secret, hex'),
}).meta({ id: 'CreatedApiKey' });
export type CreatedApiKey = z.infer<typeof CreatedApiKey>;

/** What the gateway learns about an API-key caller. */
export const ApiKeyPrincipal = z.object({
  keyId: z.string(),
  workspaceId: z.string(),
  createdBy: z.string(),
  /** Defaults to false: a keys service from before roles (a rolling upgrade) never widens a key. */
  actsForOthers: z.boolean().default(false),
  permissions: z.array(z.string()),
  ipWhitelist: z.array(z.string()),
  collections: z.array(z.string()),
});
export type ApiKeyPrincipal = z.infer<typeof ApiKeyPrincipal>;

/** API keys are `lore_<key id>.<secret>`; JWTs never start with `lore_`. */
export const API_KEY_PREFIX = 'lore_';

export function parseApiKeyToken(token: string): { keyId: string; secret: string } | null {
  if (!token.startsWith(API_KEY_PREFIX)) return null;
  const body = token.slice(API_KEY_PREFIX.length);
  const dot = body.indexOf('.');
  if (dot <= 0 || dot === body.length - 1) return null;
  return { keyId: body.slice(0, dot), secret: body.slice(dot + 1) };
}
