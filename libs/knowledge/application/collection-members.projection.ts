import type { Projection } from '@lore/platform/projections';
import { COLLECTION_STREAM_PREFIX, CONTENT_STREAM_PREFIX, upcastContentEvent } from '@lore/knowledge/domain';

export const COLLECTION_MEMBERS = 'collection_members';

/**
 * Which contents each collection holds, kept until each content's own deletion: the
 * collection cascade reads it after the catalog has already dropped the collection's contents.
 */
export const collectionMembersProjection: Projection = {
  name: 'knowledge.collection-members.v1',
  // Collection streams too, though it uses none of their events: read-your-writes waits for
  // every projection to pass a write's position, and a runner only moves over events it reads.
  streamPrefixes: [COLLECTION_STREAM_PREFIX, CONTENT_STREAM_PREFIX],
  collections: [COLLECTION_MEMBERS],
  async handle(recorded, context) {
    if (!recorded.streamId.startsWith(CONTENT_STREAM_PREFIX)) return;
    const event = upcastContentEvent(recorded);
    if (event.type === 'knowledge.ContentAdded') context.upsert(COLLECTION_MEMBERS, { id: event.data.contentId, collection_id: event.data.collectionId });
    if (event.type === 'knowledge.ContentDeleted') context.delete(COLLECTION_MEMBERS, event.data.contentId);
  },
};
