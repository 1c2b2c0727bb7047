import { randomBytes } from 'node:crypto';
import { projectionSpec, recordedEvent, type ProjectionSpec } from '@lore/platform/testing';
import { openSqliteDocumentStore } from '@lore/platform/documents/sqlite';
import { Keyring } from '@lore/platform/crypto';
import { chunksProjection } from './chunks.projection';
import { ContentTexts } from './content-texts';

/** Chunk records follow the attempts of their content; delivered at least once. */
let chunks: ProjectionSpec;
let texts: ContentTexts;
beforeAll(async () => {
  texts = new ContentTexts(await Keyring.open(openSqliteDocumentStore({ path: ':memory:' }), randomBytes(32)));
  chunks = projectionSpec(chunksProjection(texts));
});

const at = (second: number): string => `2026-01-01T00:00:${String(second).padStart(2, '0')}.000Z`;
const stream = 'knowledge-content-cnt_1';
const ids = { contentId: 'cnt_1', collectionId: 'col_1' };
const model = { provider: 'local', model: 'm', dimensions: 2, distance: 'cosine' as const, maxInputTokens: 254, index: 'local_m_2' };
const started = (attempt: number) =>
  recordedEvent(stream, 'knowledge.ContentProcessingStarted', { ...ids, attempt, leaseId: `l${attempt}`, leaseUntil: at(59), chunkSize: 254, chunkOverlap: 0, embedding: model, startedAt: at(attempt) }, at(attempt));
const added = (attempt: number, words: readonly (string | { sealed: string })[]) =>
  recordedEvent(
    stream,
    'knowledge.ContentChunksAdded',
    {
      ...ids,
      workspaceId: 'ws',
      attempt,
      index: { name: 'local_m_2', dimensions: 2, distance: 'cosine' },
      contentName: 'doc',
      source: null,
      metadata: { lang: 'en' },
      chunks: words.map((text, i) => ({ chunkId: `cnt_1_c${i}`, chunkIndex: i, text, start: 0, end: typeof text === 'string' ? text.length : 5, tokens: 1, vector: 'AACAPwAAAAA=' })),
      addedAt: at(attempt + 1),
    },
    at(attempt + 1),
  );
const failed = (attempt: number, retryAt: string | null) =>
  recordedEvent(stream, 'knowledge.ContentProcessingFailed', { ...ids, attempt, error: 'boom', retryAt, failedAt: at(attempt + 2) }, at(attempt + 2));

const chunk = (i: number, text: string, second: number) => ({
  id: `cnt_1_c${i}`,
  content_id: 'cnt_1',
  collection_id: 'col_1',
  workspace_id: 'ws',
  content_name: 'doc',
  source: null,
  content: text,
  metadata: { lang: 'en', chunk_start: 0, chunk_end: text.length, chunk_tokens: 1 },
  chunk_index: i,
  size_bytes: text.length,
  created_at: at(second),
  updated_at: at(second),
});

const attemptPurge = (workspaceId: string) => ({ id: 'attempt:cnt_1', workspace_id: workspaceId, collection_id: 'col_1', content_id: 'cnt_1', position: `${'0'.repeat(20)}:${'0'.repeat(20)}` });

describe('chunks projection', () => {
  it('records the chunks of an attempt, idempotently', async () => {
    await chunks.given([started(1), added(1, ['alpha', 'beta'])]).thenDocuments({ chunks: [chunk(0, 'alpha', 2), chunk(1, 'beta', 2)] });
    await chunks.given([started(1), added(1, ['alpha', 'beta'])]).whenReplayed().thenUnchanged();
  });

  it('opens texts sealed under the content\'s key, and refuses one sealed for another content', async () => {
    const key = await texts.newKey();
    await chunks.given([started(1), added(1, [texts.seal('cnt_1', 'alpha', key), texts.seal('cnt_1', 'gamma', key)])]).thenDocuments({ chunks: [chunk(0, 'alpha', 2), chunk(1, 'gamma', 2)] });
    await expect(chunks.given([started(1), added(1, [texts.seal('cnt_2', 'alpha', key)])]).thenDocuments({ chunks: [] })).rejects.toThrow();
  });

  it.each([
    ['given up', null],
    ['waiting for a retry', at(50)],
  ])('records the partial chunks of a failed attempt as purged, for the purge worker to remove (%s)', async (_why, retryAt) => {
    const failure = { ...failed(1, retryAt), metadata: { workspaceId: 'ws' } };
    await chunks.given([started(1), added(1, ['alpha', 'beta']), failure]).thenDocuments({ chunks: [chunk(0, 'alpha', 2), chunk(1, 'beta', 2)], chunk_purges: [attemptPurge('ws')] });
  });

  it('records a purge when a later attempt starts or a reprocess is asked for, not when the first attempt starts', async () => {
    const reprocess = recordedEvent(stream, 'knowledge.ContentReprocessRequested', { ...ids, requestedBy: 'u', requestedAt: at(9) }, at(9));
    await chunks.given([started(1)]).thenDocuments({ chunks: [], chunk_purges: [] });
    // No workspace in the metadata (an attempt the sweep found): the chunks' own.
    await chunks.given([started(1), added(1, ['alpha']), reprocess]).thenDocuments({ chunks: [chunk(0, 'alpha', 2)], chunk_purges: [attemptPurge('ws')] });
    await chunks.given([started(1), added(1, ['alpha']), started(2)]).thenDocuments({ chunks: [chunk(0, 'alpha', 2)], chunk_purges: [attemptPurge('ws')] });
  });

  it('keeps a pending purge where it is when the content starts over again before it ran (no chunk was written since)', async () => {
    const at5 = { commit: 5n, prepare: 5n };
    const reprocess = { ...recordedEvent(stream, 'knowledge.ContentReprocessRequested', { ...ids, requestedBy: 'u', requestedAt: at(9) }, at(9)), position: at5 };
    const again = { ...started(2), position: { commit: 7n, prepare: 7n } };
    await chunks.given([started(1), added(1, ['alpha']), reprocess, again]).thenDocuments({ chunks: [chunk(0, 'alpha', 2)], chunk_purges: [{ ...attemptPurge('ws'), position: `${'5'.padStart(20, '0')}:${'5'.padStart(20, '0')}` }] });
  });

  it('replaces an earlier attempt\'s chunks with the next attempt\'s when replayed, the purge record with them', async () => {
    await chunks.given([started(1), added(1, ['old one', 'old two']), started(3), added(3, ['new'])]).thenDocuments({ chunks: [chunk(0, 'new', 4)], chunk_purges: [] });
  });
});
