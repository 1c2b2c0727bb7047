/**
 * Which workspaces have webhook deliveries pending, and whose turn it is: the sender's senders
 * go round the workspaces with due deliveries (the one served longest ago first) rather than
 * take the oldest deliveries of all. Taking the oldest, one workspace's backlog (a flood of
 * events, or an endpoint that hangs until the timeout on every attempt) made every other
 * workspace's deliveries wait behind all of it. In memory: filled from the store at start, then
 * by the dispatcher and redelivery as they make deliveries pending (`add`).
 *
 * Also counts what is in flight, so that one workspace holds at most `perWorkspace` senders and
 * one endpoint at most `perWebhook`: an endpoint that hangs ties up that many, never all.
 */
export interface LaneLimits {
  readonly perWorkspace: number;
  readonly perWebhook: number;
}

interface Lane {
  /** Epoch ms before which none of its pending deliveries is due (0: some may be due now). */
  dueAt: number;
  /** When it was last given a sender (a count of senders given), for its turn. */
  served: number;
  inFlight: number;
  /**
   * Bumped whenever its deliveries may have changed (added, redelivered, an attempt ended): what a
   * query saw before a bump says nothing about now (`notDueUntil` is then ignored).
   */
  version: number;
}

export class DeliveryLanes {
  private readonly lanes = new Map<string, Lane>();
  private readonly webhookInFlight = new Map<string, number>();
  private given = 0;
  private inFlightTotal = 0;

  constructor(private readonly limits: LaneLimits) {}

  /** The workspace may have deliveries due now (new ones, a redelivery, a restart's backlog). */
  add(workspaceId: string): void {
    const lane = this.lanes.get(workspaceId);
    if (lane === undefined) this.lanes.set(workspaceId, { dueAt: 0, served: 0, inFlight: 0, version: 0 });
    else {
      lane.dueAt = 0;
      lane.version++;
    }
  }

  /** What the workspace's lane has seen so far: pass it back to `notDueUntil` with what a query read after it. */
  versionOf(workspaceId: string): number {
    return this.lanes.get(workspaceId)?.version ?? -1;
  }

  /**
   * The workspaces that may take a sender now, in turn: some delivery may be due, and fewer
   * than `perWorkspace` of theirs are in flight; the one served longest ago first.
   */
  inTurn(now: number): string[] {
    return [...this.lanes]
      .filter(([, lane]) => lane.dueAt <= now && lane.inFlight < this.limits.perWorkspace)
      .sort(([, a], [, b]) => a.served - b.served)
      .map(([workspaceId]) => workspaceId);
  }

  /** Endpoints that may take no more senders now. */
  busyWebhooks(): string[] {
    return [...this.webhookInFlight].filter(([, n]) => n >= this.limits.perWebhook).map(([id]) => id);
  }

  /**
   * Nothing of the workspace is due before `at` (epoch ms), as a query read it at `version`; a
   * lane with nothing pending at all goes. Ignored when the lane changed since (the query may
   * have missed a delivery added meanwhile).
   */
  notDueUntil(workspaceId: string, at: number | null, version: number): void {
    const lane = this.lanes.get(workspaceId);
    if (lane === undefined || lane.version !== version) return;
    if (at === null && lane.inFlight === 0) this.lanes.delete(workspaceId);
    // Only deliveries in flight: looked at again when one of them ends (`take`'s release).
    else lane.dueAt = at ?? Infinity;
  }

  /** A sender takes one of the workspace's deliveries to `webhookId`; the returned function gives it back. */
  take(workspaceId: string, webhookId: string): () => void {
    const lane = this.lanes.get(workspaceId) ?? { dueAt: 0, served: 0, inFlight: 0, version: 0 };
    this.lanes.set(workspaceId, lane);
    lane.inFlight++;
    this.inFlightTotal++;
    lane.served = ++this.given;
    this.webhookInFlight.set(webhookId, (this.webhookInFlight.get(webhookId) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      lane.inFlight--;
      this.inFlightTotal--;
      lane.version++;
      const left = (this.webhookInFlight.get(webhookId) ?? 1) - 1;
      if (left > 0) this.webhookInFlight.set(webhookId, left);
      else this.webhookInFlight.delete(webhookId);
      // Its next deliveries (a retry it just scheduled, the rest of a backlog) are looked at again.
      // (A lane with deliveries in flight is never let go, so it is still in the map.)
      lane.dueAt = 0;
    };
  }

  /** Deliveries in flight, of every workspace. */
  get inFlight(): number {
    return this.inFlightTotal;
  }
}
