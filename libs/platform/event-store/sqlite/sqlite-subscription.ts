import type { RecordedEvent } from '@lore/platform/kernel';
import type { EventBatchHandler, EventSubscription } from '@lore/platform/event-store/port';

/** One page of the log as the subscription sees it. */
export interface LogPage {
  readonly events: RecordedEvent[];
  /**
   * Sequence number up to which the log has been examined. It can be past the last event
   * returned when a prefix filter skipped events, so the next page does not scan them again.
   */
  readonly scannedTo: bigint;
  /** More matching events may follow at once: read again without waiting. */
  readonly more: boolean;
}

export interface LogReader {
  readPage(afterSeq: bigint, limit: number): LogPage;
}

export interface SubscriptionSettings {
  readonly pageSize: number;
}

/**
 * A catch-up-then-live subscription over the SQLite log. A single async loop reads a page,
 * awaits the handler, and only then reads the next page, which gives in-order delivery and
 * back-pressure for free. Caught up, it sleeps until woken: by its store after a local commit,
 * or when the store's watch sees another process's (no timer of its own: a score of them
 * polling kept an idle process busy). Because SQLite has one writer at a time and positions only grow,
 * every committed event is visible at a position above the cursor, so nothing is skipped;
 * the cursor only moves past what was read, so nothing is delivered twice.
 */
export class SqliteSubscription implements EventSubscription {
  private closed = false;
  /** Set by wake(); lets a notification that arrives while a page is handled skip the next wait. */
  private woken = false;
  private wakeWaiter: (() => void) | undefined;
  private readonly done: Promise<void>;

  constructor(
    private readonly reader: LogReader,
    after: bigint,
    private readonly handler: EventBatchHandler,
    private readonly onError: (error: unknown) => void,
    private readonly settings: SubscriptionSettings,
    private readonly onStopped: (subscription: SqliteSubscription) => void,
    /** The stream prefixes it reads (none: every stream). */
    private readonly prefixes: readonly string[] = [],
  ) {
    this.done = this.run(after);
  }

  /**
   * Called after a local commit (and when another process committed) so live events arrive.
   * `streamIds`: the streams the commit wrote; a subscription none of them concerns stays
   * asleep (it would read a page and find nothing for it: with a score of subscriptions per
   * process, most of the reads after each commit of an ingestion were such empty pages).
   */
  wake(streamIds?: readonly string[]): void {
    if (streamIds !== undefined && this.prefixes.length > 0 && !streamIds.some((id) => this.prefixes.some((prefix) => id.startsWith(prefix)))) return;
    this.woken = true;
    this.wakeWaiter?.();
  }

  /**
   * Stops delivery and resolves once the batch in flight (if any) has settled. Awaiting it
   * from inside the handler would wait on itself: call it without awaiting there.
   */
  async close(): Promise<void> {
    this.closed = true;
    this.wake();
    await this.done;
  }

  private async run(after: bigint): Promise<void> {
    let cursor = after;
    try {
      // Yield once so the constructor returns before the first read and handler call.
      await Promise.resolve();
      while (!this.closed) {
        this.woken = false;
        const page = this.reader.readPage(cursor, this.settings.pageSize);
        cursor = page.scannedTo;
        if (page.events.length > 0) {
          await this.handler(page.events);
          // Events may have been committed while the handler ran: look again before waiting.
          continue;
        }
        if (!page.more) await this.sleep();
      }
    } catch (error) {
      if (!this.closed) {
        this.closed = true;
        this.onError(error);
      }
    } finally {
      this.onStopped(this);
    }
  }

  /** Waits for a wake (a commit that may concern it, or close). Nothing pending keeps the process running. */
  private sleep(): Promise<void> {
    if (this.woken || this.closed) return Promise.resolve();
    return new Promise<void>((resolve) => {
      this.wakeWaiter = () => {
        this.wakeWaiter = undefined;
        resolve();
      };
    });
  }
}
