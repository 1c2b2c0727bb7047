import { z } from 'zod';
import { CONNECTION_STATUSES } from './connection.records';

/**
 * What downstream systems see on `<prefix>.events.connection.<type>.<workspace token>`: ids,
 * the integration and status changes with their reason. Never a credential, and never the configuration (it may name
 * internal hosts): subscribers fetch what they may read.
 */
export const ConnectionIntegrationEvent = z.object({
  type: z.enum(['connection.created', 'connection.updated', 'connection.status_changed', 'connection.deleted']),
  event_id: z.string(),
  occurred_at: z.string(),
  workspace_id: z.string(),
  user_id: z.string(),
  connection_id: z.string(),
  integration: z.string(),
  /** For status changes: what it was, what it is, and why (the last test's reason). */
  status: z.object({ from: z.enum(CONNECTION_STATUSES), to: z.enum(CONNECTION_STATUSES), reason: z.string().nullable() }).nullable(),
  credential_rotated: z.boolean(),
});
export type ConnectionIntegrationEvent = z.infer<typeof ConnectionIntegrationEvent>;
