import type { Position } from '@lore/platform/kernel';
import type { EventStore } from '@lore/platform/event-store/port';
import type { DocumentStore } from '@lore/platform/documents/port';
import type { Reactor } from '@lore/platform/projections';
import { sealedKeyId, streamErasureReactor, type Keyring } from '@lore/platform/crypto';
import { WEBHOOK_STREAM_PREFIX, upcastWebhookEvent, webhookStreamId } from '@lore/connections/domain';
import { WEBHOOK_ERASURE } from './webhook.commands';

/** A deleted webhook's signing secret is crypto-shredded and its stream deleted, once the read model dropped it. */
export function webhookErasureReactor(deps: {
  readonly events: EventStore;
  readonly documents: DocumentStore;
  readonly keyring: Keyring;
  readonly processedByOthers: (position: Position) => Promise<void>;
}): Reactor {
  return streamErasureReactor(deps, {
    name: WEBHOOK_ERASURE,
    streamPrefix: WEBHOOK_STREAM_PREFIX,
    erasedStream: (event) => (event.type === 'connections.WebhookDeleted' ? webhookStreamId(upcastWebhookEvent(event).data.webhookId) : null),
    keyIdsOf: (event) => {
      const data = upcastWebhookEvent(event).data;
      return 'secret' in data ? [sealedKeyId(data.secret)] : [];
    },
  });
}
