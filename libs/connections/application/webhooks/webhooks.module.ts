import type { ContextDeps } from '@lore/platform/cqrs';
import { afterErasure, keyedPurgeWork, PurgeWorker, type Projection } from '@lore/platform/projections';
import { handle, type MessageHandler } from '@lore/platform/transport/port';
import { webhookMessages, type ConnectionsConfig } from '@lore/connections/contracts';
import { webhookStreamId } from '@lore/connections/domain';
import { WEBHOOK_ERASURE, WebhookCommands } from './webhook.commands';
import { WebhookQueries } from './webhook.queries';
import { webhookErasureReactor } from './webhook-erasure.reactor';
import { webhookDispatcher } from './webhook-dispatcher.worker';
import { WebhookSender } from './webhook-sender.worker';
import { WEBHOOKS, WEBHOOK_DELIVERIES } from './webhook.read-models';
import { WebhookWorkspaces } from './webhook-workspaces';
import { DELIVERY_PURGE } from './delivery-purges';

/** How long erasure (and the delivery log's purge) may wait for the other processors to pass a webhook's deletion. */
const ERASURE_WAIT_MS = 10 * 60_000;

/** Webhooks as a part of the connections context: endpoints, their delivery log, dispatcher and sender (the read model is in the connections projection). */
export function webhooksModule(deps: ContextDeps<ConnectionsConfig>) {
  const settings = deps.config.webhooks;
  const inFlight = new Set<string>();
  // The commands wake the sender, and the sender disables through the commands: tied by a late-bound wake.
  const wakeSender = (workspaceId?: string): void => sender.wake(workspaceId);
  // A deleted webhook's delivery log, removed after the deletion's batch (delivery-purges.ts); its DELETE waits for that too.
  const purges = new PurgeWorker({ ...deps, ...keyedPurgeWork(deps.documents, DELIVERY_PURGE), kind: 'deliveries', readModelsPassed: afterErasure(deps.readYourWrites, ERASURE_WAIT_MS, (purge) => ({ reactor: WEBHOOK_ERASURE, stream: webhookStreamId(purge.id) })) });
  const commands = new WebhookCommands({ ...deps, settings, wakeSender, inFlight, deliveriesPurged: (webhookId, timeoutMs) => purges.drained([webhookId], timeoutMs) });
  const sender: WebhookSender = new WebhookSender({ ...deps, settings, secrets: commands.secrets, inFlight, disable: (webhook, reason) => commands.disableAutomatically(webhook, reason) });
  const queries = new WebhookQueries(deps.documents);
  const workspaces = new WebhookWorkspaces();
  const handlers: MessageHandler[] = [
    handle(webhookMessages.create, (c) => commands.create(c)),
    handle(webhookMessages.update, (c) => commands.update(c)),
    handle(webhookMessages.delete, (c) => commands.delete(c)),
    handle(webhookMessages.redeliver, (c) => commands.redeliver(c)),
    handle(webhookMessages.get, (q) => queries.get(q)),
    handle(webhookMessages.list, (q) => queries.list(q)),
    handle(webhookMessages.deliveries, (q) => queries.deliveries(q)),
  ];
  return {
    handlers,
    /** The connections projection (which holds the webhooks' read model), telling the dispatcher which workspaces have webhooks. */
    watching: (projection: Projection) => workspaces.watching(projection),
    reactors: [webhookErasureReactor({ ...deps, processedByOthers: (position, erased) => deps.readYourWrites.settleAllBut(WEBHOOK_ERASURE, position, ERASURE_WAIT_MS, erased) })],
    workers: [sender, webhookDispatcher({ ...deps, wakeSender, workspaces }), purges],
    async prepare() {
      await deps.documents.collection(WEBHOOKS).ensureIndex(['workspace_id', 'status']);
      const deliveries = deps.documents.collection(WEBHOOK_DELIVERIES);
      await deliveries.ensureIndex(['status', 'next_attempt_at']);
      // The sender's turn of one workspace: its earliest pending deliveries.
      await deliveries.ensureIndex(['workspace_id', 'status', 'next_attempt_at']);
      await deliveries.ensureIndex(['webhook_id', 'created_at']);
      await deliveries.ensureIndex(['webhook_id', 'status', 'created_at']);
      await deps.documents.collection(DELIVERY_PURGE.records).ensureIndex(['workspace_id', 'position']);
    },
  };
}
