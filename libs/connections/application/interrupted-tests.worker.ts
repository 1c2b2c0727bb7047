import { AppError, reactingTo, type Clock, type RecordedEvent } from '@lore/platform/kernel';
import type { EventStore } from '@lore/platform/event-store/port';
import type { DocumentStore } from '@lore/platform/documents/port';
import { handleCommand, periodicTask, type ContextLog } from '@lore/platform/cqrs';
import { connectionStreamId, upcastConnectionEvent } from '@lore/connections/domain';
import { CONNECTIONS, type ConnectionDoc } from './connection.read-models';
import { connectionAggregate } from './connection.commands';

export const INTERRUPTED_TEST_REASON = 'the test was interrupted (the service stopped while it ran); test again';

/**
 * A test cut off by a crash leaves its connection `testing`, which refuses changes. Once the
 * test is older than CONNECTION_STALE_TEST_MS (longer than any test may run), it is ended as
 * `error` with the reason, so the connection can be changed, disabled or tested again. The end
 * is caused by the event that started the test (its correlation id names the request that ran it).
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
      const stream = connectionStreamId(doc.id);
      try {
        const cause = testStart(await deps.events.readStream(stream));
        await reactingTo(cause, 'interrupted-tests', () =>
          handleCommand(
            deps.events,
            connectionAggregate,
            stream,
            { kind: 'finish-test', ...owner, outcome: 'error', reason: INTERRUPTED_TEST_REASON, at: deps.clock.now().toISOString() },
            { metadata: { workspaceId: doc.workspace_id } },
          ),
        );
        ended++;
      } catch (error) {
        // Finished or deleted meanwhile: nothing to end. Anything else stays with this
        // connection (logged; the next run tries again) and the others are still ended.
        if (!(error instanceof AppError && (error.code === 'conflict' || error.code === 'not_found'))) {
          deps.log.error({ connectionId: doc.id, workspaceId: doc.workspace_id, err: error instanceof Error ? error.message : String(error) }, 'could not end an interrupted connection test; the next run tries again');
        }
      }
    }
    return ended;
  }
  return { end, ...periodicTask({ name: 'interrupted tests', firstAfterMs: Math.min(30_000, deps.config.staleTestMs), everyMs: deps.config.staleTestMs, log: deps.log, run: end }) };
}

/** The event that started the connection's latest test. */
function testStart(stream: readonly RecordedEvent[]): RecordedEvent | undefined {
  return stream.findLast((recorded) => {
    const event = upcastConnectionEvent(recorded);
    return event.type === 'connections.ConnectionStatusChanged' && event.data.to === 'testing';
  });
}
