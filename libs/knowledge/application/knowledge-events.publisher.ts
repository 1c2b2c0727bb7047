import type { RecordedEvent } from '@lore/platform/kernel';
import type { Transport } from '@lore/platform/transport/port';
import { integrationEventsPublisher, type Reactor } from '@lore/platform/projections';
import type { ContentIntegrationEvent } from '@lore/knowledge/contracts';
import { CONTENT_STREAM_PREFIX, upcastContentEvent } from '@lore/knowledge/domain';

/**
 * Publishes a content's status changes for downstream subscribers (and the event stream the
 * console follows uploads with), at least once: a reactor with a checkpoint. Erasure waits
 * for it like for every other processor, so a deleted content's events are out before its
 * stream goes.
 */
export function knowledgeEventsPublisher(transport: Transport): Reactor {
  return integrationEventsPublisher(transport, { name: 'knowledge.integration-events.v1', streamPrefix: CONTENT_STREAM_PREFIX, integrationEvent });
}

function integrationEvent(recorded: RecordedEvent): ContentIntegrationEvent | null {
  const event = upcastContentEvent(recorded);
  const workspaceId = recorded.metadata.workspaceId;
  const base = {
    event_id: recorded.id,
    occurred_at: recorded.recordedAt,
    workspace_id: typeof workspaceId === 'string' ? workspaceId : '',
    content_id: event.data.contentId,
    chunks: null,
  };
  switch (event.type) {
    case 'knowledge.ContentAdded':
      return { ...base, workspace_id: event.data.workspaceId, collection_id: event.data.collectionId, type: 'content.created', status: 'new' };
    case 'knowledge.ContentProcessingStarted':
      return { ...base, collection_id: event.data.collectionId, type: 'content.processing', status: 'processing' };
    case 'knowledge.ContentChunksAdded':
      return { ...base, workspace_id: event.data.workspaceId, collection_id: event.data.collectionId, type: 'content.chunks_added', status: 'processing', chunks: event.data.chunks.length };
    case 'knowledge.ContentProcessingCompleted':
      return { ...base, collection_id: event.data.collectionId, type: 'content.completed', status: 'completed', chunks: event.data.chunkCount };
    case 'knowledge.ContentProcessingFailed':
      // With a retry ahead the content stays `processing` (it is tried again at retryAt).
      return { ...base, collection_id: event.data.collectionId, type: 'content.failed', status: event.data.retryAt === null ? 'failed' : 'processing' };
    case 'knowledge.ContentReprocessRequested':
      return { ...base, collection_id: event.data.collectionId, type: 'content.reprocess_requested', status: 'new' };
    case 'knowledge.ContentDeleted':
      return { ...base, workspace_id: event.data.workspaceId, collection_id: event.data.collectionId, type: 'content.deleted', status: 'deleted' };
    default:
      // Parts of a text, leases, originals kept or discarded, chunk edits: no status change.
      return null;
  }
}
