import { comparePositions, reactingTo, type Clock, type Position } from '@lore/platform/kernel';
import type { EventStore } from '@lore/platform/event-store/port';
import type { DocumentStore } from '@lore/platform/documents/port';
import type { Reactor } from '@lore/platform/projections';
import { handleCommand } from '@lore/platform/cqrs';
import { COLLECTION_STREAM_PREFIX, contentStreamId, upcastCollectionEvent } from '@lore/knowledge/domain';
import { COLLECTION_MEMBERS } from './collection-members.projection';
import { contentAggregate } from './content-aggregate';

export const COLLECTION_CASCADE = 'knowledge.collection-cascade.v1';

interface CascadeDeps {
  readonly events: EventStore;
  readonly documents: DocumentStore;
  readonly clock: Clock;
}

/**
 * Deletes each content of a deleted collection in its own stream (so that its history ends
 * with a deletion, no worker goes on processing it, and erasure shreds it). Run by the
 * collection's DELETE, which then waits for the erasure, and again by the reactor below,
 * which finishes the job after a crash. Idempotent: a content already deleted is left as it
 * is. The members must be projected up to the deletion first. Returns the position of the last
 * of their deletions, its own or an earlier one (null: none, or each one erased already).
 */
export async function deleteCollectionContents(deps: CascadeDeps, collection: { readonly collectionId: string; readonly workspaceId: string }, actor?: string): Promise<Position | null> {
  let last: Position | null = null;
  let cursor: string | null = null;
  do {
    const page: { items: readonly { id: string }[]; nextCursor: string | null } = await deps.documents
      .collection(COLLECTION_MEMBERS)
      .find({ filter: { collection_id: collection.collectionId }, limit: 500, ...(cursor === null ? {} : { cursor }) });
    for (const member of page.items) {
      const result = await handleCommand(
        deps.events,
        contentAggregate,
        contentStreamId(member.id),
        { kind: 'delete', access: null, cause: 'collection', at: deps.clock.now().toISOString() },
        { retries: 10, metadata: { workspaceId: collection.workspaceId, ...(actor === undefined ? {} : { actor }) } },
      );
      // Deleted before (by the reactor below, or the request): its stream's head is that deletion (none: erased already).
      const deletion = result.position ?? result.head;
      if (deletion !== null && (last === null || comparePositions(deletion, last) > 0)) last = deletion;
    }
    cursor = page.nextCursor;
  } while (cursor !== null);
  // Whoever deleted them, their erasure is what the caller waits for: up to the last deletion, not the log's head
  // (waiting for the head waited for every other workspace's content erasures before it too).
  return last;
}

/** Finishes the cascade of a collection deletion that its request did not (a crash in between). */
export function collectionCascadeReactor(deps: CascadeDeps & { readonly membersSettled: (position: Position) => Promise<void> }): Reactor {
  return {
    name: COLLECTION_CASCADE,
    streamPrefixes: [COLLECTION_STREAM_PREFIX],
    async react(events) {
      for (const recorded of events) {
        const event = upcastCollectionEvent(recorded);
        if (event.type !== 'knowledge.CollectionDeleted') continue;
        // Contents added just before the deletion must be in the member list first.
        await deps.membersSettled(recorded.position);
        await reactingTo(recorded, 'collection-cascade', () => deleteCollectionContents(deps, event.data));
      }
    },
  };
}
