import type { Reactor } from '@lore/platform/projections';
import { sealedKeyId, streamErasureReactor, type StreamErasureDeps } from '@lore/platform/crypto';
import { WEBHOOK_STREAM_PREFIX, upcastWebhookEvent, webhookStreamId } from '@lore/connections/domain';
import { WEBHOOK_ERASURE } from './webhook.commands';

/** A deleted webhook's signing secret is crypto-shredded and its stream deleted, once the read model dropped it. */
export function webhookErasureReactor(deps: StreamErasureDeps): Reactor {
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
