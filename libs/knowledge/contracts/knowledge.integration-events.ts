import { z } from 'zod';

/**
 * What downstream systems (and the console's live upload status) see of a content's life on
 * `<prefix>.events.content.<type>.<workspace token>`: ids, the status it moved to and chunk
 * counts, never its text, name or metadata (subscribers fetch what they may read).
 */
export const ContentIntegrationEvent = z.object({
  type: z.enum(['content.created', 'content.processing', 'content.chunks_added', 'content.completed', 'content.failed', 'content.reprocess_requested', 'content.deleted']),
  event_id: z.string(),
  occurred_at: z.string(),
  workspace_id: z.string(),
  collection_id: z.string(),
  content_id: z.string(),
  /** The content's status after the event, as `GET /api/v1/contents/{id}` reads it (`deleted` once gone). */
  status: z.enum(['new', 'processing', 'completed', 'failed', 'deleted']),
  /** `content.chunks_added`: chunks this step added; `content.completed`: the content's chunks; else null. */
  chunks: z.number().int().nullable(),
});
export type ContentIntegrationEvent = z.infer<typeof ContentIntegrationEvent>;
