import { z } from 'zod';

/** SPEC §3: a connection's statuses. */
export const CONNECTION_STATUSES = ['active', 'inactive', 'testing', 'error', 'expired'] as const;
export type ConnectionStatus = (typeof CONNECTION_STATUSES)[number];

/**
 * Connection domain events, one stream per connection. They never hold a secret: credentials
 * are their own sealed aggregate, referenced by id. `config` is the integration's non-secret
 * configuration (its JSON Schema in the catalog marks no field secret).
 */
export const ConnectionCreated = z.object({
  type: z.literal('connections.ConnectionCreated'),
  data: z.object({
    connectionId: z.string(),
    workspaceId: z.string(),
    userId: z.string(),
    createdBy: z.string(),
    integration: z.string(),
    integrationType: z.string(),
    authMethodId: z.string(),
    label: z.string(),
    config: z.record(z.string(), z.unknown()),
    credentialId: z.string().nullable(),
    createdAt: z.string(),
  }),
});

export const ConnectionUpdated = z.object({
  type: z.literal('connections.ConnectionUpdated'),
  data: z.object({
    connectionId: z.string(),
    workspaceId: z.string(),
    userId: z.string(),
    integration: z.string(),
    label: z.string().optional(),
    config: z.record(z.string(), z.unknown()).optional(),
    /** A new credential (rotation); the one it replaced is named so it can be released. */
    credentialId: z.string().nullable().optional(),
    previousCredentialId: z.string().nullable().optional(),
    authMethodId: z.string().optional(),
    updatedAt: z.string(),
  }),
});

export const ConnectionStatusChanged = z.object({
  type: z.literal('connections.ConnectionStatusChanged'),
  data: z.object({
    connectionId: z.string(),
    workspaceId: z.string(),
    userId: z.string(),
    integration: z.string(),
    from: z.enum(CONNECTION_STATUSES),
    to: z.enum(CONNECTION_STATUSES),
    /** Why, for `error` and `expired`: what the verification answered. */
    reason: z.string().nullable(),
    /** Set when the change ends a test. */
    testedAt: z.string().nullable(),
    changedAt: z.string(),
  }),
});

export const ConnectionDeleted = z.object({
  type: z.literal('connections.ConnectionDeleted'),
  data: z.object({ connectionId: z.string(), workspaceId: z.string(), userId: z.string(), integration: z.string(), credentialId: z.string().nullable(), deletedAt: z.string() }),
});

export const ConnectionEvent = z.discriminatedUnion('type', [ConnectionCreated, ConnectionUpdated, ConnectionStatusChanged, ConnectionDeleted]);
export type ConnectionEvent = z.infer<typeof ConnectionEvent>;

export const CONNECTION_STREAM_PREFIX = 'connection-';
export const connectionStreamId = (connectionId: string): string => `${CONNECTION_STREAM_PREFIX}${connectionId}`;
