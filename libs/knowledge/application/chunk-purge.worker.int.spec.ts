import { openSqliteDocumentStore } from '@lore/platform/documents/sqlite';
import { openSqliteVectorStore } from '@lore/platform/vectors/sqlite';
import type { DocumentStore } from '@lore/platform/documents/port';
import { START } from '@lore/platform/kernel';
import type { VectorStore, VectorWrite } from '@lore/platform/vectors/port';
import { ChunkPurgeWorker } from './chunk-purge.worker';
import { CHUNK_PURGES, PendingPurges, type ChunkPurgeDoc } from './chunk-purges';
import { CHUNKS } from './knowledge.read-models';

/**
 * The purge worker on the embedded stores: purges take turns by workspace, one of a workspace
 * at a time, so a workspace's small purge never waits behind another's large one.
 */
describe('ChunkPurgeWorker', () => {
  let documents: DocumentStore;
  let vectors: VectorStore;
  let worker: ChunkPurgeWorker;
  /** Contents whose points' deletion waits for `release`, and the contents such a deletion was started for. */
  const held = new Set<string>();
  const waiting = new Set<string>();
  let release: () => void = () => undefined;
  let opened = Promise.resolve();

  const contentOf = (chunkId: string): string => chunkId.split('#')[0] ?? '';
  /** An event log with nothing in it: the read models have passed its head. */
  const atStart = { headPosition: async () => START };

  beforeEach(async () => {
    documents = openSqliteDocumentStore({ path: ':memory:' });
    await documents.collection(CHUNK_PURGES).ensureIndex(['workspace_id', 'position']);
    const store = openSqliteVectorStore({ path: ':memory:', graphs: false });
    const write = store.write.bind(store);
    store.write = async (writes: readonly VectorWrite[], checkpoint) => {
      const contents = writes.flatMap((w) => (w.op === 'delete' ? w.ids.map(contentOf) : []));
      const gated = contents.filter((c) => held.has(c));
      if (gated.length > 0) {
        for (const c of gated) waiting.add(c);
        await opened;
      }
      return write(writes, checkpoint);
    };
    vectors = store;
    await vectors.ensureIndex({ name: 'ix', dimensions: 4, distance: 'cosine' });
    worker = new ChunkPurgeWorker({ documents, vectors, events: atStart, readModelsPassed: async () => undefined, log: { error: () => undefined } });
  });
  afterEach(async () => {
    release();
    await worker.stop();
    await documents.close();
    await vectors.close();
    held.clear();
    waiting.clear();
  });

  /** A content of `count` chunks (records and points) in `workspaceId`, and its purge, recorded at `position`. */
  async function deletedContent(workspaceId: string, contentId: string, count: number, position: number): Promise<void> {
    const ids = Array.from({ length: count }, (_, i) => `${contentId}#${i}`);
    await documents.write(ids.map((id, i) => ({ collection: CHUNKS, op: 'upsert' as const, doc: { id, workspace_id: workspaceId, collection_id: `col_${workspaceId}`, content_id: contentId, chunk_index: i } })));
    await vectors.write([{ op: 'upsert', index: 'ix', points: ids.map((id, i) => ({ id, collectionId: `col_${workspaceId}`, vector: [1, i % 7, 0.5, 0.25], text: `chunk ${i}`, payload: { content_id: contentId, chunk_index: i, source: null, tags: [], metadata: {} } })) }]);
    await documents.write([{ collection: CHUNK_PURGES, op: 'upsert', doc: { id: contentId, workspace_id: workspaceId, collection_id: `col_${workspaceId}`, content_id: contentId, position: `${String(position).padStart(20, '0')}:${String(position).padStart(20, '0')}` } satisfies ChunkPurgeDoc }]);
  }

  const chunksLeft = async (contentId: string): Promise<number> => documents.collection(CHUNKS).count({ content_id: contentId });
  const pointsLeft = async (workspaceId: string): Promise<number> => vectors.index('ix').count({ collections: [`col_${workspaceId}`] });

  it('removes a small purge of one workspace while another workspace\'s purges are held, one of theirs at a time', async () => {
    held.add('cnt_a1').add('cnt_a2');
    opened = new Promise((resolve) => (release = resolve));
    await deletedContent('ws_a', 'cnt_a1', 250, 1);
    await deletedContent('ws_a', 'cnt_a2', 30, 2);
    await deletedContent('ws_b', 'cnt_b', 40, 3);
    await worker.start();

    await worker.drained(['cnt_b'], 5_000);
    expect(await chunksLeft('cnt_b')).toBe(0);
    expect(await pointsLeft('ws_b')).toBe(0);
    // A's older purge holds A's turn; its second waits (one purge of a workspace at a time).
    expect([...waiting]).toEqual(['cnt_a1']);
    expect(await chunksLeft('cnt_a1')).toBe(250);
    expect(await chunksLeft('cnt_a2')).toBe(30);

    release();
    await worker.drained(['cnt_a1', 'cnt_a2'], 5_000);
    expect(await chunksLeft('cnt_a1')).toBe(0);
    expect(await chunksLeft('cnt_a2')).toBe(0);
    expect(await pointsLeft('ws_a')).toBe(0);
    expect((await documents.collection(CHUNK_PURGES).find({})).items).toEqual([]);
  });

  it('answers a wait for purges that are not there at once, and a wait that outlasts its time with an error', async () => {
    await worker.drained(['cnt_none'], 50);
    held.add('cnt_slow');
    opened = new Promise((resolve) => (release = resolve));
    await deletedContent('ws_a', 'cnt_slow', 5, 1);
    await worker.start();
    await expect(worker.drained(['cnt_slow'], 200)).rejects.toThrow(/cnt_slow were not removed within 200 ms/);
  });

  it('keeps a purge recorded again while it ran (a content that started over once more) for a run of its own', async () => {
    const record = (position: number): ChunkPurgeDoc => ({ id: 'attempt:cnt_again', workspace_id: 'ws_a', collection_id: 'col_ws_a', content_id: 'cnt_again', position: `${String(position).padStart(20, '0')}:${String(position).padStart(20, '0')}` });
    await deletedContent('ws_a', 'cnt_again', 5, 1);
    await documents.write([{ collection: CHUNK_PURGES, op: 'delete', id: 'cnt_again' }, { collection: CHUNK_PURGES, op: 'upsert', doc: record(1) }]);
    held.add('cnt_again');
    opened = new Promise((resolve) => (release = resolve));
    // The second recording's run waits for the read models to pass it, until `passed`.
    let passed: () => void = () => undefined;
    const later = new Promise<void>((resolve) => (passed = resolve));
    worker = new ChunkPurgeWorker({ documents, vectors, events: atStart, readModelsPassed: (position) => (position.commit >= 2n ? later : Promise.resolve()), log: { error: () => undefined } });
    await worker.start();
    for (let i = 0; i < 100 && !waiting.has('cnt_again'); i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect([...waiting]).toEqual(['cnt_again']);

    await documents.write([{ collection: CHUNK_PURGES, op: 'upsert', doc: record(2) }]);
    // The first run ends by deleting the record as it read it.
    const write = documents.write.bind(documents);
    let firstRunEnded!: () => void;
    const ended = new Promise<void>((resolve) => (firstRunEnded = resolve));
    documents.write = async (writes, checkpoint) => {
      await write(writes, checkpoint);
      if (writes.some((w) => w.collection === CHUNK_PURGES && w.op !== 'upsert')) firstRunEnded();
    };
    release();
    await ended;
    expect(await chunksLeft('cnt_again')).toBe(0);
    expect(await documents.collection(CHUNK_PURGES).get('attempt:cnt_again')).toEqual(record(2));
    passed();
    await worker.drained(['attempt:cnt_again'], 5_000);
  });

  it('runs a purge someone waits for (an erasure, a new attempt) past its workspace\'s queue', async () => {
    held.add('cnt_a1');
    opened = new Promise((resolve) => (release = resolve));
    await deletedContent('ws_a', 'cnt_a1', 250, 1);
    await deletedContent('ws_a', 'cnt_a2', 30, 2);
    await worker.start();
    for (let i = 0; i < 100 && !waiting.has('cnt_a1'); i++) await new Promise((resolve) => setTimeout(resolve, 10));

    await worker.drained(['cnt_a2'], 5_000);
    expect(await chunksLeft('cnt_a2')).toBe(0);
    expect(await chunksLeft('cnt_a1')).toBe(250);
  });

  it('leaves the chunks of a purge that a projection catching up records and then takes back (a replayed attempt\'s first chunks)', async () => {
    await deletedContent('ws_a', 'cnt_current', 20, 1);
    // The log's head is far past the record: the worker waits for the read models to reach it.
    let caughtUp: () => void = () => undefined;
    const reached = new Promise<void>((resolve) => (caughtUp = resolve));
    const asked: bigint[] = [];
    worker = new ChunkPurgeWorker({
      documents,
      vectors,
      events: { headPosition: async () => ({ commit: 9n, prepare: 9n }) },
      readModelsPassed: (position) => (asked.push(position.commit), position.commit >= 9n ? reached : Promise.resolve()),
      log: { error: () => undefined },
    });
    await worker.start();
    for (let i = 0; i < 100 && asked.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(asked).toEqual([9n]);
    await documents.write([{ collection: CHUNK_PURGES, op: 'delete', id: 'cnt_current' }]);
    caughtUp();
    await worker.drained(['cnt_current'], 5_000);
    await worker.stop();
    expect(await chunksLeft('cnt_current')).toBe(20);
    expect(await pointsLeft('ws_a')).toBe(20);
  });

  it('tells reads which chunks are being purged: a purged content\'s, a content\'s earlier attempts\', and every chunk of a purged collection (before its contents\' own purges are recorded)', async () => {
    await documents.write([
      { collection: CHUNK_PURGES, op: 'upsert', doc: { id: 'cnt_gone', workspace_id: 'ws_a', collection_id: 'col_live', content_id: 'cnt_gone', position: '1:1' } satisfies ChunkPurgeDoc },
      { collection: CHUNK_PURGES, op: 'upsert', doc: { id: 'collection:col_gone', workspace_id: 'ws_a', collection_id: 'col_gone', content_id: null, position: '2:2' } satisfies ChunkPurgeDoc },
      { collection: CHUNK_PURGES, op: 'upsert', doc: { id: 'attempt:cnt_started_over', workspace_id: 'ws_a', collection_id: 'col_live', content_id: 'cnt_started_over', position: '3:3' } satisfies ChunkPurgeDoc },
    ]);
    const chunks = [
      { content_id: 'cnt_gone', collection_id: 'col_live' },
      { content_id: 'cnt_kept', collection_id: 'col_live' },
      { content_id: 'cnt_in_gone_collection', collection_id: 'col_gone' },
      { content_id: 'cnt_started_over', collection_id: 'col_live' },
    ];
    const purged = await new PendingPurges(documents).among(chunks);
    expect(chunks.map(purged)).toEqual([true, false, true, true]);
  });
});
