import type { Position } from '@lore/platform/kernel';
import type { DocumentStore } from '@lore/platform/documents/port';
import { PurgeWorker, purgePosition, type ProjectionContext, type PurgeDoc, type PurgeWorkerDeps } from '@lore/platform/projections';
import { WEBHOOK_DELIVERIES } from './webhook.read-models';

/**
 * A deleted webhook's delivery log, waiting to be removed (see `PurgeWorker`). It used to go
 * inside the connections projection's batch that applied the deletion: 50,000 deliveries held
 * it 1.2 s (a throwaway measurement), and every workspace's connection and webhook writes wait
 * for that projection. Now the projection records a purge; nothing reads a deleted webhook's
 * log meanwhile (its reads answer 404 with the webhook, and the sender drops a delivery whose
 * webhook is gone), the worker removes it afterwards, then has the engine forget it (WAL
 * truncated): the log holds the events as they were sent. The webhook's DELETE waits for that.
 */
export const DELIVERY_PURGES = 'webhook_delivery_purges';

/** Deliveries removed a transaction. */
const PAGE = 200;

/** Keyed by the webhook. Not the projection's own collection: a rebuild must not drop a pending purge of a log it does not rebuild. */
export function recordDeliveryPurge(context: ProjectionContext, d: { readonly webhookId: string; readonly workspaceId: string }, position: Position): void {
  context.upsert(DELIVERY_PURGES, { id: d.webhookId, workspace_id: d.workspaceId, position: purgePosition(position) } satisfies PurgeDoc);
}

/** Whether this workspace's webhook's log is being purged (another workspace's is not: a 404 to it). */
export async function deliveriesPurging(documents: DocumentStore, ref: { readonly webhookId: string; readonly workspaceId: string }): Promise<boolean> {
  const purge = await documents.collection<PurgeDoc>(DELIVERY_PURGES).get(ref.webhookId);
  return purge !== null && purge.workspace_id === ref.workspaceId;
}

export class DeliveryPurgeWorker extends PurgeWorker<PurgeDoc> {
  constructor(deps: Omit<PurgeWorkerDeps<PurgeDoc>, 'records' | 'kind' | 'removePage' | 'afterPages'>) {
    super({
      ...deps,
      records: DELIVERY_PURGES,
      kind: 'deliveries',
      removePage: async (purge) => {
        const page = await deps.documents.collection(WEBHOOK_DELIVERIES).find({ filter: { webhook_id: purge.id }, sort: [['webhook_id', 'asc'], ['created_at', 'asc']], limit: PAGE });
        if (page.items.length > 0) await deps.documents.write(page.items.map((delivery) => ({ collection: WEBHOOK_DELIVERIES, op: 'delete' as const, id: delivery.id })));
        return page.items.length;
      },
      afterPages: () => deps.documents.purgeDeleted(),
    });
  }
}
