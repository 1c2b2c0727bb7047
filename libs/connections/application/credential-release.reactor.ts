import type { Reactor } from '@lore/platform/projections';
import { CONNECTION_STREAM_PREFIX, upcastConnectionEvent } from '@lore/connections/domain';
import type { CredentialVault } from './credential-vault';

export const CREDENTIAL_RELEASE = 'connections.credential-release.v1';

/**
 * A connection deleted or given a new credential lets go of the old one. The command does it
 * at once and waits for the shredding; this reactor does it again from the log, so a crash
 * between the connection's event and the release cannot leave a credential stored forever.
 * Detaching is idempotent.
 */
export function credentialReleaseReactor(vault: CredentialVault): Reactor {
  return {
    name: CREDENTIAL_RELEASE,
    streamPrefixes: [CONNECTION_STREAM_PREFIX],
    async react(events) {
      for (const recorded of events) {
        const event = upcastConnectionEvent(recorded);
        const metadata = { ...recorded.metadata, causationId: recorded.id };
        if (event.type === 'connections.ConnectionDeleted' && event.data.credentialId !== null) {
          await vault.detach(event.data.credentialId, event.data.connectionId, metadata);
        } else if (event.type === 'connections.ConnectionUpdated' && event.data.previousCredentialId && event.data.previousCredentialId !== event.data.credentialId) {
          await vault.detach(event.data.previousCredentialId, event.data.connectionId, metadata);
        }
      }
    },
  };
}
