import { z } from 'zod';

/**
 * `secretVerifier` is a keyed hash of the secret: the secret itself is never stored.
 * `parentKeyId` is the API key that created this one (null: a user did), whose limits it
 * can never exceed and whose revocation revokes it.
 */
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
    /**
     * Minted by a workspace administrator (or by a key that was): acts for any user_id it
     * names and may use admin permissions. A member's key acts only for `createdBy`.
     */
    actsForOthers: z.boolean(),
    parentKeyId: z.string().nullable(),
    secretVerifier: z.string(),
    createdAt: z.string(),
  }),
});

export const ApiKeyRevoked = z.object({
  type: z.literal('keys.ApiKeyRevoked'),
  data: z.object({
    keyId: z.string(),
    workspaceId: z.string(),
    revokedAt: z.string(),
    /** Set when the key was revoked because the key that created it was. */
    cascadedFrom: z.string().nullable(),
  }),
});

/**
 * The revocation of this key reached every key it created, and theirs: a repeated revoke need
 * not walk them again. Recorded only for a key that had keys below it; until it is recorded
 * (a crash during the cascade), a repeated revoke walks them and completes it.
 */
export const ApiKeyRevocationCascaded = z.object({
  type: z.literal('keys.ApiKeyRevocationCascaded'),
  data: z.object({ keyId: z.string(), workspaceId: z.string(), cascadedAt: z.string() }),
});

export const ApiKeyEvent = z.discriminatedUnion('type', [ApiKeyCreated, ApiKeyRevoked, ApiKeyRevocationCascaded]);
export type ApiKeyEvent = z.infer<typeof ApiKeyEvent>;
export type ApiKeyCreatedData = z.infer<typeof ApiKeyCreated>['data'];

export const API_KEY_STREAM_PREFIX = 'apikey-';
export const apiKeyStreamId = (keyId: string): string => `${API_KEY_STREAM_PREFIX}${keyId}`;
