import { recordedEvent } from '@lore/platform/testing';

/** One content's events, as the projection specs feed them: content cnt_1 of collection col_1, a 2-dimension model, second `n` of a fixed minute. */
export const at = (second: number): string => `2026-01-01T00:00:${String(second).padStart(2, '0')}.000Z`;
const CONTENT_STREAM = 'knowledge-content-cnt_1';
const ids = { contentId: 'cnt_1', collectionId: 'col_1' };
const model = { provider: 'local', model: 'm', dimensions: 2, distance: 'cosine' as const, maxInputTokens: 254, index: 'local_m_2' };

export const started = (attempt: number) =>
  recordedEvent(CONTENT_STREAM, 'knowledge.ContentProcessingStarted', { ...ids, attempt, leaseId: `l${attempt}`, leaseUntil: at(59), chunkSize: 254, chunkOverlap: 0, embedding: model, startedAt: at(attempt) }, at(attempt));

/** The attempt's chunks `cnt_1_c<i>`, one per text, in one event (so the first is chunk 0). */
export const added = (attempt: number, texts: readonly (string | { sealed: string })[], metadata: Record<string, unknown> = {}) =>
  recordedEvent(
    CONTENT_STREAM,
    'knowledge.ContentChunksAdded',
    {
      ...ids,
      workspaceId: 'ws',
      attempt,
      index: { name: 'local_m_2', dimensions: 2, distance: 'cosine' },
      contentName: 'doc',
      source: null,
      metadata,
      chunks: texts.map((text, i) => ({ chunkId: `cnt_1_c${i}`, chunkIndex: i, text, start: 0, end: typeof text === 'string' ? text.length : 5, tokens: 1, vector: 'AACAPwAAAAA=' })),
      addedAt: at(attempt + 1),
    },
    at(attempt + 1),
  );

export const failed = (attempt: number, retryAt: string | null) =>
  recordedEvent(CONTENT_STREAM, 'knowledge.ContentProcessingFailed', { ...ids, attempt, error: 'boom', retryAt, failedAt: at(attempt + 2) }, at(attempt + 2));
export const completed = (attempt: number, chunkCount: number) =>
  recordedEvent(CONTENT_STREAM, 'knowledge.ContentProcessingCompleted', { ...ids, attempt, chunkCount, completedAt: at(attempt + 2) }, at(attempt + 2));
export const reprocessed = recordedEvent(CONTENT_STREAM, 'knowledge.ContentReprocessRequested', { ...ids, requestedBy: 'u', requestedAt: at(30) }, at(30));
