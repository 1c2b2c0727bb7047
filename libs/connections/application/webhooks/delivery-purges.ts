import type { KeyedPurge } from '@lore/platform/projections';
import { WEBHOOK_DELIVERIES } from './webhook.read-models';

/**
 * A deleted webhook's delivery log, waiting to be removed (see `PurgeWorker`). It used to go
 * inside the connections projection's batch that applied the deletion: 50,000 deliveries held
 * it 1.2 s (a throwaway measurement), and every workspace's connection and webhook writes wait
 * for that projection. Now the projection records a purge; nothing reads a deleted webhook's
 * log meanwhile (its reads answer 404 with the webhook, and the sender drops a delivery whose
 * webhook is gone), the worker removes it afterwards, then has the engine forget it (WAL
 * truncated): the log holds the events as they were sent. The webhook's DELETE waits for that.
 * The records are not the projection's own collection: a rebuild must not drop a pending purge
 * of a log it does not rebuild.
 */
export const DELIVERY_PURGE: KeyedPurge = { records: 'webhook_delivery_purges', collection: WEBHOOK_DELIVERIES, key: 'webhook_id', order: 'created_at' };
