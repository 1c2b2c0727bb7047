import type { RecordedEvent } from '@lore/platform/kernel';
import { evolveDocument, type ProjectionContext, type RevisionedDoc } from '@lore/platform/projections';
import { upcastConnectSessionEvent } from '@lore/connections/domain';

export const CONNECT_SESSIONS = 'connect_sessions';

/** What the sweep needs of a session: whether it ended, and when it expires. Never a hash or the sealed verifier. */
export interface ConnectSessionDoc extends RevisionedDoc {
  readonly id: string;
  readonly workspace_id: string;
  readonly status: 'created' | 'authorizing' | 'exchanging' | 'completed' | 'failed';
  readonly expires_at: string;
  readonly [field: string]: unknown;
}

/**
 * Sessions and whether they ended, for the sweep of abandoned ones (reads of a session go to its
 * stream). Part of the connections projection, so that read-your-writes waits for one read model.
 */
export async function projectConnectSessionEvent(recorded: RecordedEvent, context: ProjectionContext): Promise<void> {
  const event = upcastConnectSessionEvent(recorded);
  await evolveDocument<ConnectSessionDoc>(context, recorded, CONNECT_SESSIONS, event.data.sessionId, (current) => {
    switch (event.type) {
      case 'connections.ConnectSessionCreated':
        return { id: event.data.sessionId, workspace_id: event.data.workspaceId, status: 'created', expires_at: event.data.expiresAt };
      case 'connections.ConnectSessionAuthorizing':
        return current && { ...current, status: 'authorizing' };
      case 'connections.ConnectSessionExchanging':
        return current && { ...current, status: 'exchanging' };
      // Kept (not deleted): a redelivered creation must find the document and leave it as it is.
      case 'connections.ConnectSessionCompleted':
        return current && { ...current, status: 'completed' };
      case 'connections.ConnectSessionFailed':
        return current && { ...current, status: 'failed' };
    }
  });
}
