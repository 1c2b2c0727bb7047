import { randomBytes } from 'node:crypto';
import { openSqliteDocumentStore } from '@lore/platform/documents/sqlite';
import { openSqliteVectorStore } from '@lore/platform/vectors/sqlite';
import type { VectorStore, VectorWrite } from '@lore/platform/vectors/port';
import type { RecordedEvent } from '@lore/platform/kernel';
import { Keyring } from '@lore/platform/crypto';
import { chunkVectorsProjection } from './chunk-vectors.projection';
import { ContentTexts } from './content-texts';
import { added, at, completed, failed, reprocessed, started } from './content-events.fixture';

/** Points follow the attempts of their content; a start-over leaves the earlier attempt's points to the purge worker. */
describe('chunk vectors projection', () => {
  let vectors: VectorStore;
  let texts: ContentTexts;
  beforeEach(async () => {
    texts = new ContentTexts(await Keyring.open(openSqliteDocumentStore({ path: ':memory:' }), randomBytes(32)));
    vectors = openSqliteVectorStore({ path: ':memory:', graphs: false });
  });
  afterEach(() => vectors.close());

  /** Applies each event's writes as the projection runner would (one batch an event). */
  async function project(events: readonly RecordedEvent[]): Promise<void> {
    const projection = chunkVectorsProjection(texts);
    for (const event of events) {
      const writes: VectorWrite[] = [];
      await projection.handle(event, { ensureIndex: (definition) => vectors.ensureIndex(definition), write: (w) => void writes.push(w) });
      if (writes.length > 0) await vectors.write(writes);
    }
  }
  const points = async () => (await vectors.index('local_m_2').get(['cnt_1_c0', 'cnt_1_c1', 'cnt_1_c2'])).map((p) => [p.id, p.text]);

  it('leaves an earlier attempt\'s points to the purge worker when the content starts over', async () => {
    await project([started(1), added(1, ['alpha', 'beta']), failed(1, at(40)), started(2)]);
    expect(await points()).toEqual([['cnt_1_c0', 'alpha'], ['cnt_1_c1', 'beta']]);
    await project([completed(2, 2), reprocessed, started(3)]);
    expect(await points()).toEqual([['cnt_1_c0', 'alpha'], ['cnt_1_c1', 'beta']]);
  });

  it('drops an earlier attempt\'s points when replayed, where no purge will: a content that failed for good, an attempt that completed with fewer chunks', async () => {
    await project([started(1), added(1, ['alpha', 'beta']), completed(1, 2), reprocessed, started(2), failed(2, null)]);
    expect(await points()).toEqual([]);
    await project([started(3), added(3, ['alpha', 'beta']), completed(3, 2), reprocessed, started(4), completed(4, 0)]);
    expect(await points()).toEqual([]);
  });

  it('replaces an earlier attempt\'s points with the next attempt\'s when replayed (the purge that removed them live is not there yet)', async () => {
    await project([started(1), added(1, ['old one', 'old two', 'old three']), started(2), added(2, ['new'])]);
    expect(await points()).toEqual([['cnt_1_c0', 'new']]);
  });
});
