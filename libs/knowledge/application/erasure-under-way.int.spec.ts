import type { IntegrationEvent } from '@lore/platform/transport/port';
import { send } from '@lore/platform/transport/port';
import { filesHolding, outcome, startContext, until, type RunningContext } from '@lore/platform/testing';
import { describeWithModels } from '@lore/platform/embeddings/contract';
import { knowledgeConfig, knowledgeMessages } from '@lore/knowledge/contracts';
import { knowledgeContext } from './knowledge.context';

const messages = knowledgeMessages(knowledgeConfig.parse({}));
const scope = { workspaceId: 'ws_slow_erase', actor: 'user:alice', collections: null };
const outsider = { workspaceId: 'ws_other', actor: 'user:mallory', collections: null };


/**
 * A deletion whose erasure outlasts the request's wait (READ_YOUR_WRITES_TIMEOUT_MS) is
 * answered as under way (the gateway's 202), not as a failure (503) whose retry then found
 * nothing (404). Erasure waits for every other reader of content streams: here the
 * integration-event publisher, whose feed is held at the deletion's event.
 */
describeWithModels('a deletion whose erasure outlasts the wait', (modelsDir) => {
  let running: RunningContext;
  let release: () => void = () => undefined;

  beforeAll(async () => {
    running = await startContext(knowledgeContext, { MODELS_DIR: modelsDir, READ_YOUR_WRITES_TIMEOUT_MS: '1000' });
  });
  afterAll(async () => {
    release();
    await running.stop();
  });

  /** Holds the feed's append of every `content.deleted` until the returned release is called. */
  const holdDeletionEvents = (): (() => void) => {
    // The standalone feed the journaled transport appends each published event to (SqliteEventFeed).
    const feed = running.feed as unknown as { append: (event: IntegrationEvent) => Promise<void> };
    const append = feed.append.bind(feed);
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    feed.append = async (event: IntegrationEvent) => {
      if (event.type === 'content.deleted') await gate;
      return append(event);
    };
    release = () => {
      feed.append = append;
      open();
    };
    return release;
  };

  const add = async (collectionId: string, text: string) => {
    const content = await send(running.transport, messages.createContent, { ...scope, collectionId, name: 'slow.txt', text, mimeType: 'text/plain' });
    await until(() => send(running.transport, messages.getContent, { ...scope, contentId: content.id }), (c) => c.status === 'completed');
    return content;
  };

  it('a content: under way, its owner\'s repeated DELETE follows it, anyone else finds nothing; then gone', async () => {
    const collection = await send(running.transport, messages.createCollection, { ...scope, name: 'slow' });
    const content = await add(collection.id, 'Quorvellian tapestries hang in the drafty hall of Brimmelhaven.');
    const releaseDeletions = holdDeletionEvents();

    expect(await send(running.transport, messages.deleteContent, { ...scope, contentId: content.id })).toEqual({ contentId: content.id, erasing: true });
    // Gone from reads, while its words are still in the files.
    expect(await outcome(send(running.transport, messages.getContent, { ...scope, contentId: content.id }))).toBe('not_found');
    expect(filesHolding(running.dataDir, 'Quorvellian').length).toBeGreaterThan(0);
    // Its owner repeating the DELETE follows the same erasure, still under way: not a 404.
    expect(await send(running.transport, messages.deleteContent, { ...scope, contentId: content.id })).toEqual({ contentId: content.id, erasing: true });
    expect(await outcome(send(running.transport, messages.deleteContent, { ...outsider, contentId: content.id }))).toBe('not_found');

    releaseDeletions();
    // Once erased, nothing of it is left: a DELETE is 404, and no file holds its words.
    await until(() => outcome(send(running.transport, messages.deleteContent, { ...scope, contentId: content.id })), (code) => code === 'not_found');
    expect(filesHolding(running.dataDir, 'Quorvellian')).toEqual([]);
    expect(filesHolding(running.dataDir, 'Brimmelhaven')).toEqual([]);
  });

  it('a collection: under way while a content of it is being erased, then gone; an empty one is erased at once meanwhile', async () => {
    const collection = await send(running.transport, messages.createCollection, { ...scope, name: 'slow-collection' });
    const content = await add(collection.id, 'Snarrowind beekeepers sing to their hives.');
    const releaseDeletions = holdDeletionEvents();

    expect(await send(running.transport, messages.deleteCollection, { ...scope, collectionId: collection.id })).toEqual({ collectionId: collection.id, erasing: true });
    expect(await outcome(send(running.transport, messages.getCollection, { ...scope, collectionId: collection.id }))).toBe('not_found');
    expect(await outcome(send(running.transport, messages.deleteCollection, { ...outsider, collectionId: collection.id }))).toBe('not_found');
    // Its content's erasure is what is under way: a repeated DELETE of the content follows it.
    expect(await send(running.transport, messages.deleteContent, { ...scope, contentId: content.id })).toEqual({ contentId: content.id, erasing: true });
    // Another collection, empty, waits for no one's content erasure (not for the log's head).
    const empty = await send(running.transport, messages.createCollection, { ...scope, name: 'empty' });
    expect(await send(running.transport, messages.deleteCollection, { ...scope, collectionId: empty.id })).toEqual({ collectionId: empty.id, erasing: false });

    releaseDeletions();
    await until(() => outcome(send(running.transport, messages.deleteContent, { ...scope, contentId: content.id })), (code) => code === 'not_found');
    expect(filesHolding(running.dataDir, 'Snarrowind')).toEqual([]);
  });
});
