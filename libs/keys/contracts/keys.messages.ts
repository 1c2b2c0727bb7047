import { z } from 'zod';

export const KeysSubjects = {
  create: 'keys.command.create',
  revoke: 'keys.command.revoke',
  get: 'keys.query.get',
  list: 'keys.query.list',
  authenticate: 'keys.query.authenticate',
} as const;

export const CreateApiKeyCommand = z.object({
  workspaceId: z.string(),
  actor: z.string(),
  createdBy: z.string(),
  label: z.string(),
  status: z.enum(['active', 'inactive']),
  expiresAt: z.string().nullable(),
  permissions: z.array(z.string()),
  ipWhitelist: z.array(z.string()),
  collections: z.array(z.string()),
});
export type CreateApiKeyCommand = z.infer<typeof CreateApiKeyCommand>;

export const ApiKeyRef = z.object({ workspaceId: z.string(), actor: z.string(), keyId: z.string() });
export type ApiKeyRef = z.infer<typeof ApiKeyRef>;

export const ListApiKeysQuery = z.object({
  workspaceId: z.string(),
  status: z.enum(['active', 'inactive', 'revoked']).optional(),
  skip: z.number().int().min(0),
  limit: z.number().int().min(1),
});
export type ListApiKeysQuery = z.infer<typeof ListApiKeysQuery>;

export const AuthenticateApiKeyQuery = z.object({ token: z.string() });

/** What the gateway learns about an API-key caller. */
export const ApiKeyPrincipal = z.object({
  keyId: z.string(),
  workspaceId: z.string(),
  createdBy: z.string(),
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
