import type { ConnectSessionRecord } from '@lore/connections/contracts';
import { expiredAt, type LiveConnectSession } from '@lore/connections/domain';

/** A session as the API shows it: never its hashes or sealed verifier; `expired` once past its time without an end. */
export function toSessionRecord(session: LiveConnectSession, now: Date, connectUrl: string | null): ConnectSessionRecord {
  const open = session.status === 'created' || session.status === 'authorizing';
  const status = open && expiredAt(session, now.toISOString()) ? 'expired' : session.status === 'created' ? 'pending' : session.status;
  return {
    id: session.sessionId,
    integration: session.integration,
    auth_method_id: session.authMethodId,
    scopes: [...session.scopes],
    user_id: session.userId,
    workspace_id: session.workspaceId,
    redirect_url: session.redirectUrl,
    status,
    connect_url: connectUrl,
    connection_id: session.outcome?.connectionId ?? session.connectionId,
    connection_status: (session.outcome?.connectionStatus as ConnectSessionRecord['connection_status'] | undefined) ?? null,
    error: session.error,
    expires_at: session.expiresAt,
    created_at: session.createdAt,
    ended_at: session.endedAt,
  };
}
