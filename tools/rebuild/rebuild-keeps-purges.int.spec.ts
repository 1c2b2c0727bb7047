import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import type { VectorWrite } from '@lore/platform/vectors/port';
import { send } from '@lore/platform/transport/port';
import { createInProcessTransport } from '@lore/platform/transport/in-process';
import { journaledTransport, openEmbeddedEventFeed } from '@lore/platform/transport/sqlite-feed';
import { loadConfig } from '@lore/platform/runtime';
import { ContextHost, openContextStores } from '@lore/platform/host';
import { filesHolding, outcome, until, withVectorWriteGate } from '@lore/platform/testing';
import { describeWithModels } from '@lore/platform/embeddings/contract';
import { knowledgeConfig, knowledgeMessages } from '@lore/knowledge/contracts';
import { contentStreamId } from '@lore/knowledge/domain';
import { knowledgeContext } from '@lore/knowledge/application';
import { rebuildProjections } from './rebuild-projections';

/** While `failing`, the vector index refuses to delete the content's points: its purge fails and stays pending. */
const gate = { contentId: '', failing: false };
const refused = (w: VectorWrite): boolean => gate.failing && (w.op === 'delete' || (w.op === 'deleteWhere' && w.filter?.['content_id'] === gate.contentId));
const gated = withVectorWriteGate(knowledgeContext, async (writes) => {
  if (writes.some(refused)) throw new Error('the vector index refuses (test)');
});

const messages = knowledgeMessages(knowledgeConfig.parse({}));
const a = { workspaceId: 'ws_a', actor: 'user:alice', collections: null };

/**
 * A deleted content's chunk purge runs after its erasure has deleted the stream, so a replay
 * cannot record it again: a rebuild of the chunk projection must keep it, or the vector index
 * (not rebuilt with it) keeps the content's points, words and all, searchable for good.
 */
describeWithModels('a chunk projection rebuilt while a deleted content\'s purge is pending', (modelsDir) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'lore-rebuild-purges-'));
  const env = { MODELS_DIR: modelsDir, READ_YOUR_WRITES_TIMEOUT_MS: '1000', DATA_DIR: dataDir, LORE_MASTER_KEY: Buffer.alloc(32, 9).toString('base64'), LOG_LEVEL: 'silent' };
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  async function start() {
    const config = loadConfig(env);
    const feed = openEmbeddedEventFeed(dataDir, config.eventsStreamMaxAgeHours);
    const transport = journaledTransport(createInProcessTransport(), feed);
    const host = new ContextHost(gated, { config, transport, feed, logger: pino({ level: 'silent' }), env });
    await host.start();
    return {
      transport,
      async stop() {
        await host.stop();
        await transport.close();
        await feed.close();
      },
    };
  }

  it('keeps the purge: after a restart it removes the points, and the words are gone from every read and file', async () => {
    let running = await start();
    const collection = await send(running.transport, messages.createCollection, { ...a, name: 'c' });
    const content = await send(running.transport, messages.createContent, { ...a, collectionId: collection.id, name: 'x.txt', text: 'Zorblatquux marmalade ferries sail at noon.', mimeType: 'text/plain' });
    await until(() => send(running.transport, messages.getContent, { ...a, contentId: content.id }), (c) => c.status === 'completed');
    gate.contentId = content.id;
    gate.failing = true;
    expect(await send(running.transport, messages.deleteContent, { ...a, contentId: content.id })).toEqual({ contentId: content.id, erasing: true });
    await running.stop();

    // The erasure ran (the stream is gone), the purge did not.
    const stores = await openContextStores(loadConfig(env), 'knowledge');
    try {
      expect(await stores.events.readStream(contentStreamId(content.id))).toEqual([]);
    } finally {
      await stores.close();
    }
    expect(filesHolding(dataDir, 'Zorblatquux').length).toBeGreaterThan(0);
    const rebuilt = await rebuildProjections(['knowledge.chunks.v1'], { env, stdout: { write: () => true }, stderr: { write: () => true } });
    expect(rebuilt).toBe(0);

    gate.failing = false;
    running = await start();
    try {
      await until(() => outcome(send(running.transport, messages.deleteContent, { ...a, contentId: content.id })), (code) => code === 'not_found', 20_000);
      const search = await send(running.transport, messages.search, { ...a, collectionId: collection.id, query: 'Zorblatquux marmalade', searchType: 'hybrid' as const });
      expect(search.results).toEqual([]);
      expect(filesHolding(dataDir, 'Zorblatquux')).toEqual([]);
    } finally {
      await running.stop();
    }
  }, 120_000);
});
