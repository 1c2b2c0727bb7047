import { z } from 'zod';

/** `secretVerifier` is a keyed hash of the secret: the secret itself is never stored. */
export const ApiKeyCreated = z.object({
  type: z.literal('keys.ApiKeyCreated'),
  data: z.object({
    keyId: z.string(),
    workspaceId: z.string(),
    label: z.string(),
    status: z.enum(['active', 'inactive']),
    expiresAt: z.string().nullable(),
    permissions: z.array(z.string()),
    ipWhitelist: z.array(z.string()),
    collections: z.array(z.string()),
    createdBy: z.string(),
    secretVerifier: z.string(),
    createdAt: z.string(),
  }),
});

export const ApiKeyRevoked = z.object({
  type: z.literal('keys.ApiKeyRevoked'),
  data: z.object({ keyId: z.string(), workspaceId: z.string(), revokedAt: z.string() }),
});

export const ApiKeyEvent = z.discriminatedUnion('type', [ApiKeyCreated, ApiKeyRevoked]);
export type ApiKeyEvent = z.infer<typeof ApiKeyEvent>;
export type ApiKeyCreatedData = z.infer<typeof ApiKeyCreated>['data'];

export const API_KEY_STREAM_PREFIX = 'apikey-';
export const apiKeyStreamId = (keyId: string): string => `${API_KEY_STREAM_PREFIX}${keyId}`;
