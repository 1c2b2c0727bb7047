import { z } from 'zod';
import { CONNECTION_STATUSES } from './connection.records';

/** Lore's outcome codes of a failed connect session (README, "Connect sessions (OAuth)"). */
export const CONNECT_ERROR_CODES = [
  'access_denied',
  'provider_error',
  'token_exchange_failed',
  'session_expired',
  'state_mismatch',
  'missing_verifier',
  'missing_code',
  'connection_failed',
] as const;

export const CONNECT_SESSION_STATUSES = ['pending', 'authorizing', 'exchanging', 'completed', 'failed', 'expired'] as const;

export const ConnectSessionRecord = z
  .object({
    id: z.string(),
    integration: z.string(),
    auth_method_id: z.string(),
    scopes: z.array(z.string()),
    user_id: z.string().describe('The user the connection is for'),
    workspace_id: z.string(),
    redirect_url: z.string().describe('Where the user is sent back, with `status`, `session_id` and `connection_id` or `error`'),
    status: z
      .enum(CONNECT_SESSION_STATUSES)
      .describe('pending: the URL was not visited yet; authorizing: the user is at the provider; exchanging: the code is being exchanged and the connection tested; completed; failed (see `error`); expired'),
    connect_url: z.string().nullable().describe('The one-time URL to send the user to: only in the answer that created the session'),
    connection_id: z.string().nullable().describe('The connection to reconnect, or the one the session made'),
    connection_status: z.enum(CONNECTION_STATUSES).nullable().describe("The connection's status after its test, once completed"),
    error: z.object({ code: z.enum(CONNECT_ERROR_CODES), message: z.string() }).nullable(),
    expires_at: z.string(),
    created_at: z.string(),
    ended_at: z.string().nullable(),
  })
  .meta({ id: 'ConnectSessionRecord' });
export type ConnectSessionRecord = z.infer<typeof ConnectSessionRecord>;

/** Where the browser goes next (the gateway answers 302 with this Location). */
export const BrowserRedirect = z.object({ location: z.string() });
export type BrowserRedirect = z.infer<typeof BrowserRedirect>;
