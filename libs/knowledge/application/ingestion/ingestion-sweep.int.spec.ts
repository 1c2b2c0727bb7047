import { systemClock } from '@lore/platform/kernel';
import { openSqliteDocumentStore } from '@lore/platform/documents/sqlite';
import { openSqliteEventStore } from '@lore/platform/event-store/sqlite';
import type { DocumentStore } from '@lore/platform/documents/port';
import type { EventStore } from '@lore/platform/event-store/port';
import { noEmbeddingModels } from '@lore/platform/embeddings/contract';
import { CONTENTS, type ContentDoc } from '../knowledge.read-models';
import { randomBytes } from 'node:crypto';
import { Keyring } from '@lore/platform/crypto';
import { ContentTexts } from '../content-texts';
import { IngestionWorkers } from './ingestion-workers';

/**
 * The sweep after a restart, over the embedded document store: the read model holds what a
 * crash left pending (nothing announces it any more), and new workers must queue every
 * workspace's share of it. With no worker free (`workers: 0`) what the sweep queued stays in
 * the queue for the test to read.
 */
const PAGE = 5;

function pending(id: string, workspaceId: string, user: string, minute: number): ContentDoc {
  const at = new Date(Date.UTC(2026, 0, 1, 0, minute)).toISOString();
  return {
    id,
    collection_id: `col_${workspaceId}`,
    workspace_id: workspaceId,
    name: `${id}.txt`,
    source: null,
    mime_type: 'text/plain',
    size: 10,
    metadata: {},
    status: 'new',
    error: null,
    attempts: 0,
    chunk_count: 0,
    created_at: at,
    updated_at: at,
    processed_at: null,
    created_by: `user:${user}`,
    lease_until: null,
    retry_at: null,
  };
}

describe('ingestion sweep after a restart', () => {
  let documents: DocumentStore;
  let events: EventStore;
  let workers: IngestionWorkers | undefined;

  beforeEach(() => {
    documents = openSqliteDocumentStore({ path: ':memory:' });
    events = openSqliteEventStore({ path: ':memory:' });
  });
  afterEach(async () => {
    await workers?.stop();
    workers = undefined;
    await documents.close();
    await events.close();
  });

  const restart = async (): Promise<IngestionWorkers> => {
    workers = new IngestionWorkers({
      events,
      documents,
      embeddings: noEmbeddingModels,
      texts: new ContentTexts(await Keyring.open(documents, randomBytes(32))),
      clock: systemClock,
      config: { timeoutMs: 60_000, maxAttempts: 3, leaseMs: 60_000, workers: 0, retryBaseMs: 2_000 },
      sweepBatch: PAGE,
      earlierAttemptsPurged: async () => undefined,
    });
    await workers.start();
    return workers;
  };

  it("queues another workspace's pending content though one workspace has more pending than a sweep's page", async () => {
    const contents = documents.collection<ContentDoc>(CONTENTS);
    // Workspace A's backlog is older than B's one content, and longer than a page.
    for (let i = 0; i < PAGE * 3; i++) await contents.upsert(pending(`a${i}`, 'ws_sweep_a', 'alice', i));
    await contents.upsert(pending('b0', 'ws_sweep_b', 'bob', 59));

    const depth = (await restart()).queueDepthByWorkspace();
    expect(depth.get('ws_sweep_b')).toBe(1);
    // A gets a page: the rest of its backlog comes with later sweeps, as the page drains.
    expect(depth.get('ws_sweep_a')).toBe(PAGE);
  });

  it('finds every workspace with pending contents, and none that has only finished ones', async () => {
    const contents = documents.collection<ContentDoc>(CONTENTS);
    for (const [i, ws] of ['ws_c', 'ws_a', 'ws_b'].entries()) await contents.upsert(pending(`${ws}_1`, ws, 'u', i));
    await contents.upsert({ ...pending('done_1', 'ws_done', 'u', 4), status: 'completed' });
    const depth = (await restart()).queueDepthByWorkspace();
    expect(Object.fromEntries(depth)).toEqual({ ws_a: 1, ws_b: 1, ws_c: 1 });
  });
});
