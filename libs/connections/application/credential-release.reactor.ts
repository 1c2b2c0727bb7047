import { reactingTo } from '@lore/platform/kernel';
import type { EventStore } from '@lore/platform/event-store/port';
import type { Reactor } from '@lore/platform/projections';
import { readAggregateState } from '@lore/platform/cqrs';
import { CONNECTION_STREAM_PREFIX, connectionStreamId, upcastConnectionEvent } from '@lore/connections/domain';
import type { CredentialVault } from './credential-vault';
import { connectionAggregate } from './connection.commands';

export const CREDENTIAL_RELEASE = 'connections.credential-release.v1';

/**
 * A connection deleted or given a new credential lets go of the old one. The command does it
 * at once and waits for the shredding; this reactor does it again from the log, so a crash
 * between the connection's event and the release cannot leave a credential stored forever.
 * Detaching is idempotent; a connection that uses the credential again by now (rotated away
 * and back) keeps it.
 */
export function credentialReleaseReactor(vault: CredentialVault, events: EventStore): Reactor {
  return {
    name: CREDENTIAL_RELEASE,
    streamPrefixes: [CONNECTION_STREAM_PREFIX],
    async react(batch) {
      for (const recorded of batch) {
        const event = upcastConnectionEvent(recorded);
        const released =
          event.type === 'connections.ConnectionDeleted' ? event.data.credentialId
          : event.type === 'connections.ConnectionUpdated' && event.data.previousCredentialId !== event.data.credentialId ? (event.data.previousCredentialId ?? null)
          : null;
        if (released === null) continue;
        const now = await readAggregateState(events, connectionAggregate, connectionStreamId(event.data.connectionId));
        if (now.status !== 'absent' && now.status !== 'deleted' && now.credentialId === released) continue;
        await reactingTo(recorded, 'credential-release', () => vault.detach(released, event.data.connectionId, { workspaceId: event.data.workspaceId }));
      }
    },
  };
}
