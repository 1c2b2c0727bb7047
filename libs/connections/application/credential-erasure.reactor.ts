import type { Reactor } from '@lore/platform/projections';
import { sealedKeyId, streamErasureReactor, type StreamErasureDeps } from '@lore/platform/crypto';
import { CREDENTIAL_STREAM_PREFIX, credentialStreamId, upcastCredentialEvent } from '@lore/connections/domain';

export const CREDENTIAL_ERASURE = 'connections.credential-erasure.v1';

/**
 * Crypto-shredding of a credential no connection uses any more, driven by
 * `connections.CredentialErased`: its data key (every value it ever sealed, refreshed tokens
 * included) and its stream go, once the read model has dropped it.
 */
export function credentialErasureReactor(deps: StreamErasureDeps): Reactor {
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
