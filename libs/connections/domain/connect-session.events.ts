import { z } from 'zod';

/**
 * A connect session (README, "Connect sessions (OAuth)"): one stream per session, from the
 * request for a one-time URL to the connection it made or the reason it failed. Nothing here
 * is a secret in the clear: the link token and the `state` are kept as SHA-256 hashes (256
 * random bits each, so a hash cannot be reversed), the PKCE verifier is sealed with the
 * session's own data key (shredded when the session ends), and the authorization code and the
 * tokens never enter an event (the tokens go sealed into a credential).
 */
export const ConnectSessionCreated = z.object({
  type: z.literal('connections.ConnectSessionCreated'),
  data: z.object({
    sessionId: z.string(),
    workspaceId: z.string(),
    userId: z.string(),
    createdBy: z.string(),
    integration: z.string(),
    authMethodId: z.string(),
    scopes: z.array(z.string()),
    /** Allowed by CONNECT_REDIRECT_URLS when the session was created. */
    redirectUrl: z.string(),
    config: z.record(z.string(), z.unknown()),
    label: z.string(),
    /** The connection to give the new tokens to (reconnect), or null to create one. */
    connectionId: z.string().nullable(),
    linkTokenHash: z.string(),
    expiresAt: z.string(),
    createdAt: z.string(),
  }),
});

/** The one-time URL was visited: the user was sent to the provider with this `state` and challenge. */
export const ConnectSessionAuthorizing = z.object({
  type: z.literal('connections.ConnectSessionAuthorizing'),
  data: z.object({ sessionId: z.string(), stateHash: z.string(), sealedVerifier: z.string().nullable(), at: z.string() }),
});

/** The callback came back with a code and took the session: a second callback finds it taken. */
export const ConnectSessionExchanging = z.object({
  type: z.literal('connections.ConnectSessionExchanging'),
  data: z.object({ sessionId: z.string(), at: z.string() }),
});

export const ConnectSessionCompleted = z.object({
  type: z.literal('connections.ConnectSessionCompleted'),
  data: z.object({
    sessionId: z.string(),
    connectionId: z.string(),
    /** The connection's status after its test: `active` (or `inactive` for a disabled one) when it works. */
    connectionStatus: z.string(),
    testPassed: z.boolean(),
    at: z.string(),
  }),
});

export const CONNECT_ERRORS = [
  'access_denied',
  'provider_error',
  'token_exchange_failed',
  'session_expired',
  'state_mismatch',
  'missing_verifier',
  'missing_code',
  'connection_failed',
] as const;
export type ConnectError = (typeof CONNECT_ERRORS)[number];

export const ConnectSessionFailed = z.object({
  type: z.literal('connections.ConnectSessionFailed'),
  data: z.object({
    sessionId: z.string(),
    error: z.enum(CONNECT_ERRORS),
    /** Safe to show: what failed, with the provider's error code; every value sent is masked out. */
    message: z.string(),
    at: z.string(),
  }),
});

export const ConnectSessionEvent = z.discriminatedUnion('type', [ConnectSessionCreated, ConnectSessionAuthorizing, ConnectSessionExchanging, ConnectSessionCompleted, ConnectSessionFailed]);
export type ConnectSessionEvent = z.infer<typeof ConnectSessionEvent>;

export const CONNECT_SESSION_STREAM_PREFIX = 'connect-session-';
export const connectSessionStreamId = (sessionId: string): string => `${CONNECT_SESSION_STREAM_PREFIX}${sessionId}`;
