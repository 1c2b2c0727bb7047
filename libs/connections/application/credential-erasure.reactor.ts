import type { Position } from '@lore/platform/kernel';
import type { EventStore } from '@lore/platform/event-store/port';
import type { DocumentStore } from '@lore/platform/documents/port';
import type { Reactor } from '@lore/platform/projections';
import { sealedKeyId, streamErasureReactor, type Keyring } from '@lore/platform/crypto';
import { CREDENTIAL_STREAM_PREFIX, credentialStreamId, upcastCredentialEvent } from '@lore/connections/domain';

export const CREDENTIAL_ERASURE = 'connections.credential-erasure.v1';

/**
 * Crypto-shredding of a credential no connection uses any more, driven by
 * `connections.CredentialErased`: its data key (every value it ever sealed, refreshed tokens
 * included) and its stream go, once the read model has dropped it.
 */
export function credentialErasureReactor(deps: {
  readonly events: EventStore;
  readonly documents: DocumentStore;
  readonly keyring: Keyring;
  readonly processedByOthers: (position: Position, erasedStreams: readonly string[]) => Promise<void>;
}): Reactor {
  return streamErasureReactor(deps, {
    name: CREDENTIAL_ERASURE,
    streamPrefix: CREDENTIAL_STREAM_PREFIX,
    erasedStream: (event) => (event.type === 'connections.CredentialErased' ? credentialStreamId(upcastCredentialEvent(event).data.credentialId) : null),
    keyIdsOf: (event) => {
      const data = upcastCredentialEvent(event).data;
      return 'secret' in data ? [sealedKeyId(data.secret)] : [];
    },
  });
}
