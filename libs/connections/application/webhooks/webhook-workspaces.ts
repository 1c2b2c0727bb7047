import type { DocumentStore } from '@lore/platform/documents/port';
import type { Projection } from '@lore/platform/projections';
import { WEBHOOK_STREAM_PREFIX, upcastWebhookEvent } from '@lore/connections/domain';
import { WEBHOOKS, type WebhookDoc } from './webhook.read-models';

/**
 * The workspaces that may have an active webhook, so the dispatcher asks the document store
 * about an event only when its workspace may (a deployment without webhooks pays nothing per
 * event). A superset, never less: loaded from the read model when the dispatcher starts, and
 * every creation or re-enabling the connections projection handles adds its workspace before the
 * projection's documents are written. So whatever the dispatcher's query would find, the set
 * holds; a workspace whose webhooks are all gone stays in it (its events are queried, as before).
 */
export class WebhookWorkspaces {
  private readonly workspaces = new Set<string>();
  /** Waiting for the first workspace (see whenAny). */
  private readonly waiting = new Set<() => void>();

  mayHaveActive(workspaceId: string): boolean {
    return this.workspaces.has(workspaceId);
  }

  /** Resolves once some workspace may have an active webhook (at once if one may), or when `signal` aborts. */
  whenAny(signal: AbortSignal): Promise<void> {
    if (this.workspaces.size > 0 || signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const wake = (): void => {
        this.waiting.delete(wake);
        signal.removeEventListener('abort', wake);
        resolve();
      };
      this.waiting.add(wake);
      signal.addEventListener('abort', wake);
    });
  }

  private add(workspaceId: string): void {
    this.workspaces.add(workspaceId);
    for (const wake of [...this.waiting]) wake();
  }

  /** Every workspace with an active webhook in the read model (run before the dispatcher reads the feed). */
  async load(documents: DocumentStore): Promise<void> {
    const active = await documents.collection<WebhookDoc>(WEBHOOKS).find({ filter: { status: 'active' } });
    for (const webhook of active.items) this.add(webhook.workspace_id);
  }

  /** The projection, noting the workspace of each webhook event it handles before its documents are written. */
  watching(projection: Projection): Projection {
    return {
      ...projection,
      handle: async (recorded, context) => {
        if (recorded.streamId.startsWith(WEBHOOK_STREAM_PREFIX)) {
          // Only these make a webhook active; a change keeps the workspace it was created in.
          const event = upcastWebhookEvent(recorded);
          if (event.type === 'connections.WebhookCreated') this.add(event.data.workspaceId);
          if (event.type === 'connections.WebhookEnabled') {
            const webhook = await context.get<WebhookDoc>(WEBHOOKS, event.data.webhookId);
            if (webhook !== null) this.add(webhook.workspace_id);
          }
        }
        await projection.handle(recorded, context);
      },
    };
  }
}
