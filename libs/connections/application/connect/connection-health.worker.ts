import { AppError, type Clock } from '@lore/platform/kernel';
import type { DocumentStore } from '@lore/platform/documents/port';
import { periodicTask, type ContextLog } from '@lore/platform/cqrs';
import { CONNECTIONS, type ConnectionDoc } from '../connection.read-models';
import type { ConnectionTests } from '../connection-tests';

/** At most this many connections per run; the rest wait for the next run (the order rotates, see below). */
const MAX_PER_RUN = 10_000;

/**
 * Connections taken in turns, one workspace after another (round-robin): a workspace with ten
 * thousand connections delays another's first check by one slot, not ten thousand.
 */
export function inTurns<T>(items: readonly T[], keyOf: (item: T) => string): T[] {
  const queues = new Map<string, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    const queue = queues.get(key);
    if (queue === undefined) queues.set(key, [item]);
    else queue.push(item);
  }
  const turns: T[] = [];
  for (let round = 0; turns.length < items.length; round++) {
    for (const queue of queues.values()) {
      const item = queue[round];
      if (item !== undefined) turns.push(item);
    }
  }
  return turns;
}

/** Runs `work` over `items` with at most `limit` at once; one item's failure never stops the others. */
async function bounded<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next++];
      if (item !== undefined) await work(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}

/**
 * Health over time (README): every CONNECTION_HEALTH_INTERVAL_MS, each `active` or `error`
 * connection is verified through the egress rules like a test, its OAuth access token refreshed
 * when it expires within CONNECTION_REFRESH_AHEAD_MS, and a change of status (it failed, it
 * expired, it recovered) recorded, which publishes `connection.status_changed` to webhooks and
 * the event stream. Workspaces take turns; CONNECTION_HEALTH_CONCURRENCY bounds the checks in flight.
 */
export function connectionHealth(deps: {
  readonly documents: DocumentStore;
  readonly clock: Clock;
  readonly log: ContextLog;
  readonly tests: Pick<ConnectionTests, 'check'>;
  readonly config: { readonly health: { readonly intervalMs: number; readonly concurrency: number; readonly refreshAheadMs: number } };
}) {
  const { intervalMs, concurrency, refreshAheadMs } = deps.config.health;
  async function checkAll(): Promise<number> {
    // Least recently changed first: over runs that hit the cap, every connection gets its turn.
    const { items } = await deps.documents
      .collection<ConnectionDoc>(CONNECTIONS)
      .find({ filter: { status: { $in: ['active', 'error'] } }, sort: [['updated_at', 'asc']], limit: MAX_PER_RUN });
    await bounded(inTurns(items, (doc) => doc.workspace_id), concurrency, async (doc) => {
      try {
        await deps.tests.check({ workspaceId: doc.workspace_id, userId: doc.user_id }, doc.id, refreshAheadMs);
      } catch (error) {
        // Changed, tested or deleted meanwhile: the next run sees it as it is then.
        if (error instanceof AppError && (error.code === 'conflict' || error.code === 'not_found')) return;
        deps.log.error({ connectionId: doc.id, workspaceId: doc.workspace_id, err: error instanceof AppError ? error.code : error instanceof Error ? error.name : 'error' }, 'connection health check failed; the next run tries again');
      }
    });
    return items.length;
  }
  return { checkAll, ...periodicTask({ name: 'connection health', firstAfterMs: intervalMs, everyMs: intervalMs, log: deps.log, run: checkAll, routine: true }) };
}
