import { z } from 'zod';

/**
 * A stored credential: its own aggregate, one stream per credential, shared by the connections
 * that reference it. `secret` is the sealed JSON of every credential field (the platform's
 * sealed fields: `<data key id>:<AES-256-GCM>`, bound to the credential id); nothing else in
 * these events is secret: field names, the method, which connections use it, and a hint of
 * the last 4 characters of a long secret.
 */
const Sealed = {
  secret: z.string(),
  fieldsSet: z.array(z.string()),
  hint: z.string().nullable(),
};

export const CredentialStored = z.object({
  type: z.literal('connections.CredentialStored'),
  data: z.object({
    credentialId: z.string(),
    workspaceId: z.string(),
    userId: z.string(),
    integration: z.string(),
    authMethodId: z.string(),
    ...Sealed,
    /** The connection it was stored for: a credential is never stored unused. */
    attachedTo: z.string(),
    storedAt: z.string(),
  }),
});

export const CredentialAttached = z.object({
  type: z.literal('connections.CredentialAttached'),
  data: z.object({ credentialId: z.string(), connectionId: z.string(), at: z.string() }),
});

export const CredentialDetached = z.object({
  type: z.literal('connections.CredentialDetached'),
  data: z.object({ credentialId: z.string(), connectionId: z.string(), at: z.string() }),
});

/** A refreshed OAuth2 token: the same key seals the new values; `version` counts the changes. */
export const CredentialRefreshed = z.object({
  type: z.literal('connections.CredentialRefreshed'),
  data: z.object({ credentialId: z.string(), ...Sealed, version: z.number().int(), refreshedAt: z.string() }),
});

/** No connection uses it any more: its key is shredded and its stream deleted (the erasure reactor). */
export const CredentialErased = z.object({
  type: z.literal('connections.CredentialErased'),
  data: z.object({ credentialId: z.string(), workspaceId: z.string(), userId: z.string(), erasedAt: z.string() }),
});

export const CredentialEvent = z.discriminatedUnion('type', [CredentialStored, CredentialAttached, CredentialDetached, CredentialRefreshed, CredentialErased]);
export type CredentialEvent = z.infer<typeof CredentialEvent>;

export const CREDENTIAL_STREAM_PREFIX = 'credential-';
export const credentialStreamId = (credentialId: string): string => `${CREDENTIAL_STREAM_PREFIX}${credentialId}`;
