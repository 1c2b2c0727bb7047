import { z } from 'zod';
import { INTEGRATION_TYPES } from './integrations.records';

/** SPEC §3: a connection's statuses (the lifecycle is in the README, "Connection lifecycle"). */
export const CONNECTION_STATUSES = ['active', 'inactive', 'testing', 'error', 'expired'] as const;

/** What Lore shows of a stored credential: never a value, only which fields are set and a masked hint. */
export const CredentialSummary = z
  .object({
    id: z.string(),
    auth_method_id: z.string(),
    fields_set: z.array(z.string()).describe('The credential fields that hold a value'),
    hint: z.string().nullable().describe('The last 4 characters of the main secret, when it is long enough to show them safely ("…WXYZ")'),
    version: z.number().int().describe('1 when stored; +1 for each token refresh'),
    updated_at: z.string(),
  })
  .meta({ id: 'CredentialSummary' });
export type CredentialSummary = z.infer<typeof CredentialSummary>;

/** SPEC §2.3, plus what Lore adds: the method, the last test and the credential summary. */
export const ConnectionRecord = z
  .object({
    id: z.string(),
    integration: z.string().describe('The catalog entry id'),
    integration_type: z.enum(INTEGRATION_TYPES),
    label: z.string(),
    config: z.record(z.string(), z.unknown()),
    credential_id: z.string().nullable(),
    user_id: z.string(),
    workspace_id: z.string(),
    created_by: z.string(),
    status: z.enum(CONNECTION_STATUSES),
    auth_method_id: z.string(),
    status_reason: z.string().nullable().describe('Why the connection is in error or expired: what its last test found'),
    last_tested_at: z.string().nullable(),
    credential: CredentialSummary.nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'ConnectionRecord' });
export type ConnectionRecord = z.infer<typeof ConnectionRecord>;

export const ConnectionTestResult = z
  .object({
    connection_id: z.string(),
    success: z.boolean(),
    status: z.enum(CONNECTION_STATUSES).describe('The connection status the test ended in'),
    message: z.string(),
    http_status: z.number().int().nullable().describe('What the verification request answered, when it was sent'),
    latency_ms: z.number(),
    token_refreshed: z.boolean().describe('An expired OAuth2 access token was refreshed for this test'),
    tested_at: z.string(),
    connection: ConnectionRecord,
  })
  .meta({ id: 'ConnectionTestResult' });
export type ConnectionTestResult = z.infer<typeof ConnectionTestResult>;
