import { reactingTo, type Clock, type Position } from '@lore/platform/kernel';
import type { EventStore } from '@lore/platform/event-store/port';
import type { DocumentStore } from '@lore/platform/documents/port';
import type { Reactor } from '@lore/platform/projections';
import { handleCommand } from '@lore/platform/cqrs';
import { COLLECTION_STREAM_PREFIX, contentDecider, contentStreamId, upcastCollectionEvent, upcastContentEvent } from '@lore/knowledge/domain';
import { COLLECTION_MEMBERS } from './collection-members.projection';

/**
 * A deleted collection's contents are deleted too, each in its own stream, so that their
 * histories end with a deletion and no worker goes on processing them. The read models
 * already dropped them with the collection; this makes the log say so. Idempotent: a content
 * already deleted is left as it is.
 */
export function collectionCascadeReactor(deps: { readonly events: EventStore; readonly documents: DocumentStore; readonly clock: Clock; readonly membersSettled: (position: Position) => Promise<void> }): Reactor {
  return {
    name: 'knowledge.collection-cascade.v1',
    streamPrefixes: [COLLECTION_STREAM_PREFIX],
    async react(events) {
      for (const recorded of events) {
        const event = upcastCollectionEvent(recorded);
        if (event.type !== 'knowledge.CollectionDeleted') continue;
        // Contents added just before the deletion must be in the member list first.
        await deps.membersSettled(recorded.position);
        const members = await deps.documents.collection(COLLECTION_MEMBERS).find({ filter: { collection_id: event.data.collectionId } });
        await reactingTo(recorded, 'collection-cascade', async () => {
          for (const member of members.items) {
            await handleCommand(
              deps.events,
              { name: 'content', decider: contentDecider, upcast: upcastContentEvent },
              contentStreamId(member.id),
              { kind: 'delete', access: null, cause: 'collection', at: deps.clock.now().toISOString() },
              { retries: 10, metadata: { workspaceId: event.data.workspaceId } },
            );
          }
        });
      }
    },
  };
}
