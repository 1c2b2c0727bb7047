import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteDocumentStore } from '@lore/platform/documents/sqlite';
import { openSqliteEventStore } from '@lore/platform/event-store/sqlite';
import { Keyring } from '@lore/platform/crypto';
import { contentStreamId } from '@lore/knowledge/domain';
import { contentErasureReactor } from './knowledge-erasure.reactor';
import { CHUNK_PURGES, contentPurgeDoc, type ChunkPurgeDoc } from './chunk-purges';
import type { ContentOriginals } from './content-originals';

/**
 * The chunk projection records a deletion's purge in the deletion's batch. Where it could not (it
 * parked the deletion, and the erasure dropped that record as it does every parked event of an
 * erased stream), the erasure records it: it deletes the stream, and nothing else would then
 * ever remove the content's chunks and points, which hold its words opened.
 */
describe('the content erasure', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lore-erasure-purge-'));
  const events = openSqliteEventStore({ path: join(dir, 'events.db') });
  const documents = openSqliteDocumentStore({ path: ':memory:' });
  afterAll(async () => {
    await events.close();
    await documents.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function erase(contentId: string) {
    const keyring = await Keyring.open(openSqliteDocumentStore({ path: ':memory:' }), randomBytes(32));
    const reactor = contentErasureReactor({ events, documents, keyring, originals: {} as ContentOriginals, processedByOthers: async () => undefined });
    const data = { contentId, collectionId: 'col_1', workspaceId: 'ws_1', cause: 'request', deletedAt: '2026-11-30T00:00:00.000Z' };
    await events.append(contentStreamId(contentId), [{ id: randomUUID(), type: 'knowledge.ContentDeleted', data }], 'any');
    const [deleted] = await events.readStream(contentStreamId(contentId));
    await reactor.react([deleted!]);
    return { deleted: deleted!, data };
  }

  it('records the purge the chunk projection did not, before it deletes the stream', async () => {
    const { deleted, data } = await erase('cnt_unrecorded');
    expect(await documents.collection<ChunkPurgeDoc>(CHUNK_PURGES).get('cnt_unrecorded')).toEqual(contentPurgeDoc(data, deleted.position));
    expect(await events.readStream(contentStreamId('cnt_unrecorded'))).toEqual([]);
  });

  it('leaves a purge the projection recorded as it is', async () => {
    const recorded = contentPurgeDoc({ contentId: 'cnt_recorded', collectionId: 'col_1', workspaceId: 'ws_1' }, { commit: 1n, prepare: 1n });
    await documents.write([{ collection: CHUNK_PURGES, op: 'upsert', doc: recorded }]);
    await erase('cnt_recorded');
    expect(await documents.collection<ChunkPurgeDoc>(CHUNK_PURGES).get('cnt_recorded')).toEqual(recorded);
  });
});
