import { comparePositions, type Position } from '@lore/platform/kernel';
import type { EventStore } from '@lore/platform/event-store/port';
import type { Processor } from './projection';

/** Counting stops here: a processor this far behind is reported as at least this far. */
export const LAG_COUNT_CAP = 10_000;

/**
 * How many events of its streams each processor has yet to handle: those after its checkpoint
 * up to the log's head, counted (up to LAG_COUNT_CAP) by reading the log, since positions are
 * not event counts in every store (EventStoreDB's are byte offsets) and the head may lie in
 * streams a processor ignores. Costs one head read per scrape, and a read only for a
 * processor whose checkpoint is behind the head.
 */
export async function processorLag(runners: readonly { readonly processor: Processor; readonly checkpoint: Position }[], events: EventStore): Promise<Record<string, number>> {
  const head = await events.headPosition();
  const lag: Record<string, number> = {};
  for (const runner of runners) {
    const { checkpoint } = runner;
    if (comparePositions(checkpoint, head) >= 0) {
      lag[runner.processor.name] = 0;
      continue;
    }
    const pending = await events.readAll({ after: checkpoint, maxCount: LAG_COUNT_CAP, streamPrefixes: runner.processor.streamPrefixes });
    lag[runner.processor.name] = pending.filter((event) => comparePositions(event.position, head) <= 0).length;
  }
  return lag;
}
