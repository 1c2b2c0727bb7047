import type { Position } from '@lore/platform/kernel';
import type { EventStore } from '@lore/platform/event-store/port';
import type { DocumentStore } from '@lore/platform/documents/port';
import type { Reactor } from '@lore/platform/projections';
import { eraseAggregates, sealedKeyId, type Keyring } from '@lore/platform/crypto';
import { CREDENTIAL_STREAM_PREFIX, credentialStreamId, upcastCredentialEvent } from '@lore/connections/domain';

export const CREDENTIAL_ERASURE = 'connections.credential-erasure.v1';

/**
 * Crypto-shredding of a credential no connection uses any more, driven by
 * `connections.CredentialErased`: once every other processor has passed it (the read model
 * has dropped the credential), shred its data key (every value it ever sealed becomes noise
 * wherever it lies), delete its stream and make the engines forget the bytes. A reactor with
 * a checkpoint, so a crash anywhere is repaired on restart; every step is idempotent.
 */
export function credentialErasureReactor(deps: {
  readonly events: EventStore;
  readonly documents: DocumentStore;
  readonly keyring: Keyring;
  readonly processedByOthers: (position: Position) => Promise<void>;
}): Reactor {
  return {
    name: CREDENTIAL_ERASURE,
    streamPrefixes: [CREDENTIAL_STREAM_PREFIX],
    async react(events) {
      const erasures = events.filter((e) => e.type === 'connections.CredentialErased');
      const last = erasures[erasures.length - 1];
      if (last === undefined) return;
      await deps.processedByOthers(last.position);
      const keyIds: string[] = [];
      const streamIds: string[] = [];
      for (const erasure of erasures) {
        const streamId = credentialStreamId(upcastCredentialEvent(erasure).data.credentialId);
        streamIds.push(streamId);
        // Already gone when a crash came after the stream's deletion: its key went first.
        for (const event of await deps.events.readStream(streamId)) {
          const data = upcastCredentialEvent(event).data;
          if ('secret' in data) keyIds.push(sealedKeyId(data.secret));
        }
      }
      await eraseAggregates(deps, { keyIds, streamIds });
    },
  };
}
