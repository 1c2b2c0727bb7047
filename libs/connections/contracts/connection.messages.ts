import { z } from 'zod';
import { defineMessage, jsonDepth, MAX_JSON_DEPTH } from '@lore/platform/kernel';
import type { ConnectionLimits } from './connections.config';
import { CONNECTION_STATUSES, ConnectionRecord, ConnectionTestResult } from './connection.records';
import { INTEGRATION_TYPES } from './integrations.records';

/** Who acts and for whom: resolved by the gateway from the credential (ARCHITECTURE §4). */
export const OwnerScope = z.object({
  workspaceId: z.string().min(1).max(255),
  userId: z.string().min(1).max(255),
  /** `user:<sub>` or `api_key:<id>`, recorded in event metadata for audit. */
  actor: z.string().min(1).max(300),
});

/** A JSON object within a byte budget and the platform's nesting depth. */
function boundedObject(maxBytes: number, what: string) {
  return z
    .record(z.string(), z.unknown())
    .refine((value) => jsonDepth(value) <= MAX_JSON_DEPTH, { message: `${what} must nest at most ${MAX_JSON_DEPTH} levels` })
    .refine((value) => jsonDepth(value) > MAX_JSON_DEPTH || Buffer.byteLength(JSON.stringify(value)) <= maxBytes, {
      message: `${what} must be at most ${maxBytes} bytes of JSON`,
    });
}

/** The request fields of SPEC §2.3 with Lore's limits: one definition for the messages and the HTTP bodies. */
export function connectionFields(limits: ConnectionLimits) {
  return {
    integration: z.string().min(1).max(100).describe('The catalog entry: its id (e.g. "openai") or its name'),
    integrationType: z.enum(INTEGRATION_TYPES),
    label: z.string().trim().min(1).max(255),
    config: boundedObject(limits.maxConfigBytes, 'config'),
    credentials: boundedObject(limits.maxCredentialsBytes, 'credentials'),
    credentialId: z.string().min(1).max(100),
    authMethodId: z.string().min(1).max(100),
  };
}

const ConnectionId = z.string().min(1).max(100);

/**
 * The connections service's messages. Requests carry the configured limits, so the service
 * enforces them for every caller on the transport, not only behind the gateway.
 */
export function connectionMessages(limits: ConnectionLimits) {
  const f = connectionFields(limits);
  const ref = OwnerScope.extend({ connectionId: ConnectionId });
  return {
    /** Validated against the catalog entry first: every failed check at once, `failed_checks` (400). */
    create: defineMessage(
      'connections.command.create',
      OwnerScope.extend({
        integration: f.integration,
        integrationType: f.integrationType.optional(),
        label: f.label,
        config: f.config.optional(),
        credentials: f.credentials.optional(),
        credentialId: f.credentialId.optional(),
        authMethodId: f.authMethodId.optional(),
      }),
      ConnectionRecord,
    ),
    /** `config` is a JSON merge patch (RFC 7386); new `credentials` or `credentialId` rotate the credential. Re-validated. */
    update: defineMessage(
      'connections.command.update',
      ref.extend({
        label: f.label.optional(),
        config: f.config.optional(),
        credentials: f.credentials.optional(),
        credentialId: f.credentialId.optional(),
        authMethodId: f.authMethodId.optional(),
        status: z.enum(['active', 'inactive']).optional(),
      }),
      ConnectionRecord,
    ),
    /** Answered once the credential is shredded (when no other connection uses it). */
    delete: defineMessage('connections.command.delete', ref, z.object({ connectionId: z.string(), credentialErased: z.boolean() })),
    test: defineMessage('connections.command.test', ref, ConnectionTestResult),
    get: defineMessage('connections.query.get', ref, ConnectionRecord),
    list: defineMessage(
      'connections.query.list',
      OwnerScope.extend({
        integration: z.string().min(1).max(100).optional(),
        integrationType: z.enum(INTEGRATION_TYPES).optional(),
        status: z.enum(CONNECTION_STATUSES).optional(),
        search: z.string().min(1).max(255).optional(),
        sortBy: z.enum(['created_at', 'updated_at', 'label']).default('created_at'),
        sortOrder: z.enum(['asc', 'desc']).default('desc'),
        skip: z.number().int().min(0).default(0),
        limit: z.number().int().min(1).max(1000).default(100),
      }),
      z.object({ items: z.array(ConnectionRecord), total: z.number().int() }),
    ),
  };
}
export type ConnectionMessages = ReturnType<typeof connectionMessages>;
