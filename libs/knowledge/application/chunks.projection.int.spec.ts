import { randomBytes } from 'node:crypto';
import { projectionSpec, type ProjectionSpec } from '@lore/platform/testing';
import { added, at, failed, reprocessed, started } from './content-events.fixture';
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

const EN = { lang: 'en' };
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
    await chunks.given([started(1), added(1, ['alpha', 'beta'], EN)]).thenDocuments({ chunks: [chunk(0, 'alpha', 2), chunk(1, 'beta', 2)] });
    await chunks.given([started(1), added(1, ['alpha', 'beta'], EN)]).whenReplayed().thenUnchanged();
  });

  it('opens texts sealed under the content\'s key, and refuses one sealed for another content', async () => {
    const key = await texts.newKey();
    await chunks.given([started(1), added(1, [texts.seal('cnt_1', 'alpha', key), texts.seal('cnt_1', 'gamma', key)], EN)]).thenDocuments({ chunks: [chunk(0, 'alpha', 2), chunk(1, 'gamma', 2)] });
    await expect(chunks.given([started(1), added(1, [texts.seal('cnt_2', 'alpha', key)], EN)]).thenDocuments({ chunks: [] })).rejects.toThrow();
  });

  it.each([
    ['given up', null],
    ['waiting for a retry', at(50)],
  ])('records the partial chunks of a failed attempt as purged, for the purge worker to remove (%s)', async (_why, retryAt) => {
    const failure = { ...failed(1, retryAt), metadata: { workspaceId: 'ws' } };
    await chunks.given([started(1), added(1, ['alpha', 'beta'], EN), failure]).thenDocuments({ chunks: [chunk(0, 'alpha', 2), chunk(1, 'beta', 2)], chunk_purges: [attemptPurge('ws')] });
  });

  it('records a purge when a later attempt starts or a reprocess is asked for, not when the first attempt starts', async () => {
    const reprocess = reprocessed;
    await chunks.given([started(1)]).thenDocuments({ chunks: [], chunk_purges: [] });
    // No workspace in the metadata (an attempt the sweep found): the chunks' own.
    await chunks.given([started(1), added(1, ['alpha'], EN), reprocess]).thenDocuments({ chunks: [chunk(0, 'alpha', 2)], chunk_purges: [attemptPurge('ws')] });
    await chunks.given([started(1), added(1, ['alpha'], EN), started(2)]).thenDocuments({ chunks: [chunk(0, 'alpha', 2)], chunk_purges: [attemptPurge('ws')] });
  });

  it('keeps a pending purge where it is when the content starts over again before it ran (no chunk was written since)', async () => {
    const at5 = { commit: 5n, prepare: 5n };
    const reprocess = { ...reprocessed, position: at5 };
    const again = { ...started(2), position: { commit: 7n, prepare: 7n } };
    await chunks.given([started(1), added(1, ['alpha'], EN), reprocess, again]).thenDocuments({ chunks: [chunk(0, 'alpha', 2)], chunk_purges: [{ ...attemptPurge('ws'), position: `${'5'.padStart(20, '0')}:${'5'.padStart(20, '0')}` }] });
  });

  it('replaces an earlier attempt\'s chunks with the next attempt\'s when replayed, the purge record with them', async () => {
    await chunks.given([started(1), added(1, ['old one', 'old two'], EN), started(3), added(3, ['new'], EN)]).thenDocuments({ chunks: [chunk(0, 'new', 4)], chunk_purges: [] });
  });
});
