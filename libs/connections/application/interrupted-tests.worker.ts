import { AppError, type Clock } from '@lore/platform/kernel';
import type { EventStore } from '@lore/platform/event-store/port';
import type { DocumentStore } from '@lore/platform/documents/port';
import { handleCommand, type ContextLog } from '@lore/platform/cqrs';
import { connectionStreamId } from '@lore/connections/domain';
import { CONNECTIONS, type ConnectionDoc } from './connection.read-models';
import { connectionAggregate } from './connection.commands';
import { periodicTask } from './periodic-task';

export const INTERRUPTED_TEST_REASON = 'the test was interrupted (the service stopped while it ran); test again';

/**
 * A test cut off by a crash leaves its connection `testing`, which refuses changes. Once the
 * test is older than CONNECTION_STALE_TEST_MS (longer than any test may run), it is ended as
 * `error` with the reason, so the connection can be changed, disabled or tested again.
 */
export function interruptedTests(deps: {
  readonly events: EventStore;
  readonly documents: DocumentStore;
  readonly clock: Clock;
  readonly log: ContextLog;
  readonly config: { readonly staleTestMs: number };
}) {
  async function end(): Promise<number> {
    const before = new Date(deps.clock.now().getTime() - deps.config.staleTestMs).toISOString();
    const { items } = await deps.documents.collection<ConnectionDoc>(CONNECTIONS).find({ filter: { status: 'testing', updated_at: { $lt: before } }, limit: 500 });
    let ended = 0;
    for (const doc of items) {
      const owner = { workspaceId: doc.workspace_id, userId: doc.user_id };
      try {
        await handleCommand(
          deps.events,
          connectionAggregate,
          connectionStreamId(doc.id),
          { kind: 'finish-test', ...owner, outcome: 'error', reason: INTERRUPTED_TEST_REASON, at: deps.clock.now().toISOString() },
          { metadata: { actor: 'system:interrupted-tests', workspaceId: doc.workspace_id } },
        );
        ended++;
      } catch (error) {
        // Finished or deleted meanwhile: nothing to end.
        if (!(error instanceof AppError && (error.code === 'conflict' || error.code === 'not_found'))) throw error;
      }
    }
    return ended;
  }
  return { end, ...periodicTask({ name: 'interrupted tests', firstAfterMs: Math.min(30_000, deps.config.staleTestMs), everyMs: deps.config.staleTestMs, log: deps.log, run: end }) };
}
