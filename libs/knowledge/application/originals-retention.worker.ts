import { reactingTo, type Clock } from '@lore/platform/kernel';
import type { EventStore } from '@lore/platform/event-store/port';
import type { DocumentStore } from '@lore/platform/documents/port';
import { handleCommand, periodicTask, readAggregateState, type ContextLog } from '@lore/platform/cqrs';
import { contentStreamId } from '@lore/knowledge/domain';
import { CONTENTS, type ContentDoc } from './knowledge.read-models';
import type { ContentOriginals } from './content-originals';
import { contentAggregate } from './content-aggregate';

const EVERY_MS = 10 * 60_000;
const FIRST_AFTER_MS = 60_000;
const BATCH = 500;
const DAY_MS = 24 * 3600_000;

/**
 * Retention of original files (KNOWLEDGE_ORIGINALS_RETENTION_DAYS): every ten minutes, the
 * originals kept longer than that are deleted (parts first, then `ContentOriginalDiscarded`,
 * so a crash in between only repeats the deletion) — oldest first, whatever the workspace. The
 * contents and their texts stay. Nothing runs with a retention of 0 (kept as long as the content).
 */
export function originalsRetention(deps: {
  readonly events: EventStore;
  readonly documents: DocumentStore;
  readonly originals: ContentOriginals;
  readonly clock: Clock;
  readonly log: ContextLog;
  readonly retentionDays: number;
}) {
  async function sweep(): Promise<number> {
    if (deps.retentionDays <= 0) return 0;
    const cutoff = new Date(deps.clock.now().getTime() - deps.retentionDays * DAY_MS).toISOString();
    const { items } = await deps.documents
      .collection<ContentDoc>(CONTENTS)
      .find({ filter: { original_kept_at: { $lte: cutoff } }, sort: [['original_kept_at', 'asc']], limit: BATCH });
    let discarded = 0;
    for (const doc of items) {
      // One content failing must not keep the others' originals: logged, and the next sweep tries again.
      try {
        const state = await readAggregateState(deps.events, contentAggregate, contentStreamId(doc.id));
        if (state.status !== 'active' || state.original === null) continue;
        await deps.originals.delete(doc.id, state.original.file);
        await reactingTo(null, 'originals-retention', () =>
          handleCommand(deps.events, contentAggregate, contentStreamId(doc.id), { kind: 'discard-original', at: deps.clock.now().toISOString() }, { retries: 10, metadata: { workspaceId: doc.workspace_id } }),
        );
        discarded++;
      } catch (error) {
        deps.log.error({ contentId: doc.id, workspaceId: doc.workspace_id, err: error instanceof Error ? error.message : String(error) }, 'originals retention could not discard an original; the next sweep tries again');
      }
    }
    return discarded;
  }

  return { sweep, ...periodicTask({ name: 'originals retention', firstAfterMs: FIRST_AFTER_MS, everyMs: EVERY_MS, log: deps.log, run: sweep, routine: true }) };
}
