import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { send } from '@lore/platform/transport/port';
import { startContext, until, type RunningContext } from '@lore/platform/testing';
import { systemClock } from '@lore/platform/kernel';
import type { EventStore } from '@lore/platform/event-store/port';
import { extractionFiles } from '@lore/platform/telemetry';
import { startTestEmbeddingServer, type TestEmbeddingServer } from '@lore/platform/embeddings/contract';
import { knowledgeConfig, knowledgeMessages, ORIGINAL_PART_BYTES } from '@lore/knowledge/contracts';
import { contentStreamId, upcastContentEvent } from '@lore/knowledge/domain';
import { knowledgeContext } from './knowledge.context';
import { ContentOriginals } from './content-originals';
import { ContentTexts } from './content-texts';

const messages = knowledgeMessages(knowledgeConfig.parse({}));
const scope = { workspaceId: 'ws_originals', actor: 'user:alice', collections: null };

/** The real store, counting the stream reads it is asked for. */
function countingReads(store: EventStore): { store: EventStore; reads: string[] } {
  const reads: string[] = [];
  const wrapped = new Proxy(store, {
    get(target, property, receiver) {
      if (property === 'readStream') return (streamId: string, options?: Parameters<EventStore['readStream']>[1]) => (reads.push(streamId), target.readStream(streamId, options));
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { store: wrapped, reads };
}

/** Files the extraction pool has been given, whatever came of them. */
const filesExtracted = async (): Promise<number> => (await extractionFiles.get()).values.reduce((sum, value) => sum + value.value, 0);

/** Original files (issue 18): stored in sealed parts after their content, kept once all are in, re-extracted on reprocess, erased with the content. */
describe('knowledge: original files', () => {
  let server: TestEmbeddingServer;
  let running: RunningContext;

  beforeAll(async () => {
    server = await startTestEmbeddingServer({ dimensions: 64 });
    running = await startContext(knowledgeContext, { EMBEDDING_DEFAULT_PROVIDER: 'openai-compatible', EMBEDDING_OPENAI_BASE_URL: server.baseUrl, EMBEDDING_OPENAI_MODEL: 'bag-of-words', EMBEDDING_OPENAI_DIMENSIONS: '64' });
  });
  afterAll(async () => {
    await running.stop();
    await server.close();
  });

  const originalsDir = () => join(running.dataDir, 'knowledge', 'originals');
  const blobFiles = () => {
    try {
      return readdirSync(originalsDir());
    } catch {
      return [];
    }
  };

  it('keeps a file sent in parts, re-extracts it on reprocess, and erases it with its content', async () => {
    const collection = await send(running.transport, messages.createCollection, { ...scope, name: 'files' });
    const file = Buffer.from(`<html><body><!-- ${'z'.repeat(ORIGINAL_PART_BYTES + 1000)} --><p>Glassfrogs sing at night.</p></body></html>`);
    const text = 'Glassfrogs sing at night.';
    const created = await send(running.transport, messages.createContent, {
      ...scope, collectionId: collection.id, name: 'frogs.html', text, mimeType: 'text/html',
      original: { name: 'frogs.html', contentType: 'text/html', sizeBytes: file.length, parts: 2 },
    });
    expect(created.original).toBeNull(); // declared, not yet kept
    const first = await send(running.transport, messages.putContentOriginalPart, { ...scope, contentId: created.id, part: 0, data: file.subarray(0, ORIGINAL_PART_BYTES).toString('base64') });
    expect(first.kept).toBe(false);
    await expect(send(running.transport, messages.getContentOriginalPart, { ...scope, contentId: created.id, part: 0 })).rejects.toMatchObject({ code: 'not_found' });
    const last = await send(running.transport, messages.putContentOriginalPart, { ...scope, contentId: created.id, part: 1, data: file.subarray(ORIGINAL_PART_BYTES).toString('base64') });
    expect(last.kept).toBe(true);
    const kept = await send(running.transport, messages.getContent, { ...scope, contentId: created.id });
    expect(kept.original).toEqual({ file_name: 'frogs.html', content_type: 'text/html', size: file.length });
    const parts = await Promise.all([0, 1].map((part) => send(running.transport, messages.getContentOriginalPart, { ...scope, contentId: created.id, part })));
    expect(Buffer.concat(parts.map((p) => Buffer.from(p.data, 'base64'))).equals(file)).toBe(true);
    // Sealed at rest: the blob files do not hold the file's words.
    expect(blobFiles()).toHaveLength(2);
    await expect(send(running.transport, messages.getContentOriginalPart, { ...scope, workspaceId: 'ws_other', contentId: created.id, part: 0 })).rejects.toMatchObject({ code: 'not_found' });

    await until(() => send(running.transport, messages.getContent, { ...scope, contentId: created.id }), (c) => c.status === 'completed');
    await send(running.transport, messages.reprocessContent, { ...scope, contentId: created.id });
    const stores = await running.openStores();
    try {
      const reprocess = (await stores.events.readStream(contentStreamId(created.id))).map(upcastContentEvent).find((e) => e.type === 'knowledge.ContentReprocessRequested');
      // The text came from the file again, sealed like the upload's.
      expect(reprocess?.type === 'knowledge.ContentReprocessRequested' && reprocess.data.text).toMatchObject({ first: { sealed: expect.any(String) }, firstBytes: Buffer.byteLength(text), parts: 1 });
    } finally {
      await stores.close();
    }
    await until(() => send(running.transport, messages.getContent, { ...scope, contentId: created.id }), (c) => c.status === 'completed');

    await send(running.transport, messages.deleteContent, { ...scope, contentId: created.id });
    expect(blobFiles()).toEqual([]);
  });

  it('answers 404 for a file that is not there without reading the content\'s stream, the same 404 as before', async () => {
    const collection = await send(running.transport, messages.createCollection, { ...scope, name: 'no files' });
    const plain = await send(running.transport, messages.createContent, { ...scope, collectionId: collection.id, name: 'plain.txt', text: 'Only text, no file.', mimeType: 'text/plain' });
    const arriving = await send(running.transport, messages.createContent, {
      ...scope, collectionId: collection.id, name: 'late.txt', text: 'Its file never came.', mimeType: 'text/plain',
      original: { name: 'late.txt', contentType: 'text/plain', sizeBytes: 10, parts: 1 },
    });
    const kept = await send(running.transport, messages.createContent, {
      ...scope, collectionId: collection.id, name: 'kept.txt', text: 'Kept file.', mimeType: 'text/plain',
      original: { name: 'kept.txt', contentType: 'text/plain', sizeBytes: 10, parts: 1 },
    });
    await send(running.transport, messages.putContentOriginalPart, { ...scope, contentId: kept.id, part: 0, data: Buffer.from('Kept file.').toString('base64') });

    const stores = await running.openStores();
    try {
      const { store, reads } = countingReads(stores.events);
      // The service's own ContentOriginals, over the same stores, with its stream reads counted.
      const deps = { events: store, documents: stores.documents, blobs: stores.blobs, texts: new ContentTexts(stores.keyring), clock: systemClock };
      const originals = new ContentOriginals(deps);
      const asks = [
        { contentId: plain.id, access: scope, detail: 'Original file not found' },
        { contentId: arriving.id, access: scope, detail: 'Original file not found' },
        { contentId: kept.id, access: { ...scope, workspaceId: 'ws_other' }, detail: 'Content not found' },
        { contentId: 'cnt_never_was', access: scope, detail: 'Content not found' },
      ];
      for (const ask of asks) {
        const answer = { code: 'not_found', message: ask.detail };
        await expect(send(running.transport, messages.getContentOriginalPart, { ...scope, ...ask.access, contentId: ask.contentId, part: 0 })).rejects.toMatchObject(answer);
        await expect(originals.readPart(ask.contentId, ask.access, 0)).rejects.toMatchObject(answer);
      }
      expect(reads).toEqual([]);
      // A kept file is still read from its content's stream (its key, its parts).
      const { bytes } = await originals.readPart(kept.id, scope, 0);
      expect(bytes.toString()).toBe('Kept file.');
    } finally {
      await stores.close();
    }
  });

  it('refuses to reprocess a content whose text is still arriving before opening and reading its original again', async () => {
    const collection = await send(running.transport, messages.createCollection, { ...scope, name: 'half there' });
    const first = 'The first half. ';
    const file = Buffer.from('The first half. The second half.');
    const content = await send(running.transport, messages.createContent, {
      ...scope, collectionId: collection.id, name: 'halves.txt', text: first, mimeType: 'text/plain', parts: 2, sizeBytes: file.length,
      original: { name: 'halves.txt', contentType: 'text/plain', sizeBytes: file.length, parts: 1 },
    });
    // The file is kept while its text's second part has not come: the content stays `uploading`.
    expect((await send(running.transport, messages.putContentOriginalPart, { ...scope, contentId: content.id, part: 0, data: file.toString('base64') })).kept).toBe(true);
    const extracted = await filesExtracted();
    await expect(send(running.transport, messages.reprocessContent, { ...scope, contentId: content.id })).rejects.toMatchObject({
      code: 'conflict',
      message: 'The content\'s text is still arriving; reprocess it once it is complete',
    });
    expect(await filesExtracted()).toBe(extracted);
  });
});
