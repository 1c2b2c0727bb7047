import { createHash } from 'node:crypto';
import type { Clock } from '@lore/platform/kernel';
import type { ContextLog } from '@lore/platform/cqrs';
import { isTransientFailure } from '@lore/platform/projections';
import { countWebhookDispatchSkipped } from '@lore/platform/telemetry';
import type { DocumentStore, DocumentWrite } from '@lore/platform/documents/port';
import type { EventFeed, FeedEntry } from '@lore/platform/transport/port';
import { WEBHOOKS, WEBHOOK_DELIVERIES, type DeliveryDoc, type WebhookDoc } from './webhook.read-models';
import type { WebhookWorkspaces } from './webhook-workspaces';

export const DISPATCH_CHECKPOINT = 'connections.webhook-dispatch.v1';
/** Events without a subscribed endpoint move the checkpoint only every so often: replaying them after a crash adds nothing. */
const CHECKPOINT_EVERY = 500;
const RETRY_AFTER_FAILURE_MS = 1_000;
/**
 * Tries of one feed entry that fails by itself (not a store that is away) before it is
 * skipped: one immediate retry, no sleeping, since the dispatcher serves every workspace.
 */
const ENTRY_ATTEMPTS = 2;

/** One delivery per endpoint and event: a replayed event finds it and adds nothing. */
export function deliveryId(webhookId: string, eventId: string): string {
  return createHash('sha256').update(`${webhookId}\n${eventId}`).digest('hex').slice(0, 32);
}

/** `memory.created` matches `memory.created`, `memory.*`, and an endpoint that names no types. */
export function subscribes(webhook: Pick<WebhookDoc, 'event_types'>, type: string): boolean {
  if (webhook.event_types.length === 0) return true;
  return webhook.event_types.includes(type) || webhook.event_types.includes(`${type.slice(0, type.indexOf('.'))}.*`);
}

/**
 * Follows the event feed (every workspace) from its checkpoint and records a pending delivery
 * for each active endpoint subscribed to an event that happened after the endpoint was
 * created; the sender does the sending. Deliveries and checkpoint are written together.
 */
export function webhookDispatcher(deps: {
  readonly feed: EventFeed;
  readonly documents: DocumentStore;
  readonly clock: Clock;
  readonly log: ContextLog;
  /** Deliveries of the workspace were made pending. */
  readonly wakeSender: (workspaceId: string) => void;
  /** Which workspaces may have an active webhook: the others' events are stepped past without a query. */
  readonly workspaces: WebhookWorkspaces;
}) {
  const controller = new AbortController();
  let loop: Promise<void> = Promise.resolve();
  let unsaved: number | null = null;
  let sinceSaved = 0;

  const dispatch = async (entry: FeedEntry): Promise<void> => {
    const { event } = entry;
    const occurredAt = typeof event['occurred_at'] === 'string' ? event['occurred_at'] : '';
    const active = deps.workspaces.mayHaveActive(event.workspace_id) ? (await deps.documents.collection<WebhookDoc>(WEBHOOKS).find({ filter: { workspace_id: event.workspace_id, status: 'active' } })).items : [];
    const targets = active.filter((webhook) => subscribes(webhook, event.type) && (webhook.active_since ?? webhook.created_at) <= occurredAt);
    const deliveries = deps.documents.collection<DeliveryDoc>(WEBHOOK_DELIVERIES);
    const writes: DocumentWrite[] = [];
    const now = deps.clock.now().toISOString();
    for (const webhook of targets) {
      const id = deliveryId(webhook.id, event.event_id);
      if ((await deliveries.get(id)) !== null) continue;
      const doc: DeliveryDoc = {
        id,
        webhook_id: webhook.id,
        workspace_id: webhook.workspace_id,
        event_id: event.event_id,
        event_type: event.type,
        status: 'pending',
        attempt_count: 0,
        round_attempts: 0,
        attempts: [],
        next_attempt_at: now,
        created_at: now,
        updated_at: now,
        event: { ...event },
      };
      writes.push({ collection: WEBHOOK_DELIVERIES, op: 'upsert', doc });
    }
    if (writes.length === 0 && ++sinceSaved < CHECKPOINT_EVERY) {
      unsaved = entry.position;
      return;
    }
    await deps.documents.write(writes, { name: DISPATCH_CHECKPOINT, value: String(entry.position) });
    unsaved = null;
    sinceSaved = 0;
    if (writes.length > 0) deps.wakeSender(event.workspace_id);
  };

  /**
   * One entry's failure stays with it: an entry that fails ENTRY_ATTEMPTS times in a row for a
   * reason of its own is logged (ids only), counted (lore_webhook_dispatch_skipped_total) and
   * stepped past, so one bad event does not stop webhooks for every workspace. A transient
   * failure still ends the follow, which resumes from the checkpoint, for as long as it lasts:
   * unlike a processor's (an embedding provider's claim about one text), the dispatcher's only
   * dependency is its document store, so "transient" here is an outage for every entry alike.
   */
  const dispatchOrSkip = async (entry: FeedEntry): Promise<void> => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await dispatch(entry);
      } catch (error) {
        if (controller.signal.aborted || isTransientFailure(error)) throw error;
        if (attempt < ENTRY_ATTEMPTS) continue;
        countWebhookDispatchSkipped();
        deps.log.error(
          { eventId: entry.event.event_id, type: entry.event.type, workspaceId: entry.event.workspace_id, position: entry.position, err: error instanceof Error ? error.message : String(error) },
          'webhook dispatcher skipped an event it failed on; other events and workspaces go on',
        );
        await deps.documents.write([], { name: DISPATCH_CHECKPOINT, value: String(entry.position) });
        unsaved = null;
        sinceSaved = 0;
        return;
      }
    }
  };

  /**
   * What `dispatch` does with an entry of a workspace that has no active webhook while the next
   * checkpoint is not yet due (most entries: every write of every workspace comes by), done
   * here without its promises; false for any other entry, which `dispatch` then handles.
   */
  const steppedPast = (entry: FeedEntry): boolean => {
    if (deps.workspaces.mayHaveActive(entry.event.workspace_id) || sinceSaved + 1 >= CHECKPOINT_EVERY) return false;
    sinceSaved += 1;
    unsaved = entry.position;
    return true;
  };

  const run = async (): Promise<void> => {
    while (!controller.signal.aborted) {
      try {
        await deps.workspaces.load(deps.documents);
        let saved = await deps.documents.getCheckpoint(DISPATCH_CHECKPOINT);
        if (saved === null) {
          // First start: from now on (endpoints only ever get events from after their creation
          // anyway), kept at once, so that a pause below resumes from here.
          saved = String((await deps.feed.bounds()).last);
          await deps.documents.write([], { name: DISPATCH_CHECKPOINT, value: saved });
        }
        // No webhook in any workspace: nothing to follow, so no per-event cost for a feature
        // not in use, until the first is created. Then on from where it paused: no event after
        // the new webhook's creation is missed, and the others' are stepped past.
        await deps.workspaces.whenAny(controller.signal);
        if (controller.signal.aborted) break;
        const after = Number(saved);
        for await (const page of deps.feed.follow({ after, selector: { workspaceId: null }, signal: controller.signal })) {
          for (const entry of page) if (!steppedPast(entry)) await dispatchOrSkip(entry);
        }
      } catch (error) {
        if (controller.signal.aborted) break;
        deps.log.error({ err: error instanceof Error ? error.message : String(error) }, 'webhook dispatcher failed; it resumes from its checkpoint');
        await new Promise((resolve) => setTimeout(resolve, RETRY_AFTER_FAILURE_MS).unref());
      }
    }
  };

  return {
    async start() {
      loop = run();
    },
    async stop() {
      controller.abort();
      await loop;
      if (unsaved !== null) await deps.documents.write([], { name: DISPATCH_CHECKPOINT, value: String(unsaved) });
    },
  };
}
