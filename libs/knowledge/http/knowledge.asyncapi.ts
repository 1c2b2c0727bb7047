import { integrationEvents } from '@lore/platform/http';
import { ContentIntegrationEvent } from '@lore/knowledge/contracts';

/** What knowledge publishes (knowledge-events.publisher.ts), described for `/asyncapi.json`. */
export const knowledgeIntegrationEvents = integrationEvents({
  name: 'ContentIntegrationEvent',
  schema: ContentIntegrationEvent,
  description: "A content's processing status changed. Ids, status and chunk counts only, never its text, name or metadata.",
  published: {
    'content.created': 'A content was added (a text or an uploaded file); `status` is `new` until processing starts.',
    'content.processing': 'An attempt to chunk and embed it started.',
    'content.chunks_added': 'The attempt stored a batch of chunks; `chunks` is how many.',
    'content.completed': 'Processing ended: its chunks are searchable; `chunks` is how many it has.',
    'content.failed': 'An attempt failed: `status` is `failed` when no retry follows (the reason is on the content), else `processing`.',
    'content.reprocess_requested': 'Reprocessing was asked for; `status` is `new` until it starts.',
    'content.deleted': 'The content was deleted, alone or with its collection.',
  },
});
