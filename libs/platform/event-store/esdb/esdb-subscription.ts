import { excludeSystemEvents, streamNameFilter } from '@eventstore/db-client';
import type { AllStreamResolvedEvent, AllStreamSubscription, EventStoreDBClient } from '@eventstore/db-client';
import { START, comparePositions } from '@lore/platform/kernel';
import type { Position, RecordedEvent } from '@lore/platform/kernel';
import type { EventBatchHandler, EventSubscription, SubscribeOptions } from '@lore/platform/event-store/port';
import type { DeletedStreams } from './esdb-deleted-streams';
import { isSystemEvent, mapError, matchesPrefixes, toReadPosition, toRecordedEvent } from './esdb-mapping';

/** Events handed to the handler at most at once. */
const MAX_BATCH = 500;
/** Pause the gRPC stream when this many events wait, so a slow handler bounds memory. */
const HIGH_WATER = 1_000;

/**
 * A catch-up subscription to `$all` with the port's batch contract. The client pushes events
 * as they arrive; they queue here and a single pump hands whatever has queued to the handler
 * as one batch, awaiting it before the next, so a slow handler gets larger batches instead of
 * concurrent calls. A server-side filter keeps unrelated and system events off the wire.
 * When the server connection fails, the subscription reports through onError and stops: the
 * caller (projection runner) resubscribes from its checkpoint.
 */
export class EsdbSubscription implements EventSubscription {
  private readonly queue: AllStreamResolvedEvent[] = [];
  private readonly subscription: AllStreamSubscription;
  private readonly prefixes: readonly string[];
  private lastDelivered: Position;
  private closed = false;
  private paused = false;
  private pumping: Promise<void> | undefined;

  constructor(
    client: EventStoreDBClient,
    options: SubscribeOptions,
    private readonly handler: EventBatchHandler,
    private readonly onError: (error: unknown) => void,
    private readonly deleted: DeletedStreams,
  ) {
    this.prefixes = options.streamPrefixes ?? [];
    this.lastDelivered = options.after ?? START;
    this.subscription = client.subscribeToAll({
      fromPosition: toReadPosition(options.after),
      filter: this.prefixes.length > 0 ? streamNameFilter({ prefixes: [...this.prefixes] }) : excludeSystemEvents(),
    });
    this.subscription.on('data', (resolved) => this.enqueue(resolved));
    this.subscription.on('error', (error) => this.fail(mapError(error, '$all')));
  }

  async close(): Promise<void> {
    if (!this.closed) {
      this.closed = true;
      await this.subscription.unsubscribe();
    }
    await this.pumping;
  }

  private enqueue(resolved: AllStreamResolvedEvent): void {
    if (this.closed) return;
    this.queue.push(resolved);
    if (this.queue.length >= HIGH_WATER && !this.paused) {
      this.paused = true;
      this.subscription.pause();
    }
    this.pumping ??= this.pump().finally(() => {
      this.pumping = undefined;
      if (this.queue.length > 0 && !this.closed) this.pumping = this.pump();
    });
  }

  private async pump(): Promise<void> {
    try {
      while (this.queue.length > 0 && !this.closed) {
        const raw = this.queue.splice(0, MAX_BATCH);
        if (this.paused && this.queue.length < HIGH_WATER / 2) {
          this.paused = false;
          this.subscription.resume();
        }
        const batch = await this.deleted.withoutDeleted(this.select(raw));
        if (batch.length === 0 || this.closed) continue;
        await this.handler(batch);
        const last = batch[batch.length - 1];
        if (last !== undefined) this.lastDelivered = last.position;
      }
    } catch (error) {
      this.fail(error);
    }
  }

  /** Client-side guard on top of the server filter: exclusive start, prefixes, no system events. */
  private select(raw: readonly AllStreamResolvedEvent[]): RecordedEvent[] {
    const out: RecordedEvent[] = [];
    for (const resolved of raw) {
      const event = resolved.event;
      if (event === undefined || isSystemEvent(event) || !matchesPrefixes(event.streamId, this.prefixes)) continue;
      if (comparePositions(event.position, this.lastDelivered) <= 0) continue;
      out.push(toRecordedEvent(event));
    }
    return out;
  }

  private fail(error: unknown): void {
    if (this.closed) return;
    this.closed = true;
    this.queue.length = 0;
    void this.subscription.unsubscribe().catch(() => undefined);
    this.onError(error);
  }
}
