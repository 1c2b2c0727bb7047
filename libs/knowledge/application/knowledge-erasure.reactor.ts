import type { Position, RecordedEvent } from '@lore/platform/kernel';
import type { EventStore } from '@lore/platform/event-store/port';
import type { DocumentStore } from '@lore/platform/documents/port';
import type { Reactor } from '@lore/platform/projections';
import { streamErasureReactor, type Keyring } from '@lore/platform/crypto';
import { COLLECTION_STREAM_PREFIX, CONTENT_STREAM_PREFIX, collectionStreamId, contentStreamId, upcastCollectionEvent, upcastContentEvent, type ContentText } from '@lore/knowledge/domain';
import { keyIdOfText } from './content-texts';
import type { ContentOriginals } from './content-originals';
import { collectionPurgeDoc, contentPurgeDoc, ensureDeletionPurge } from './chunk-purges';

export const KNOWLEDGE_ERASURE = 'knowledge.erasure.v1';
export const COLLECTION_ERASURE = 'knowledge.collection-erasure.v1';

interface ErasureDeps {
  readonly events: EventStore;
  readonly documents: DocumentStore;
  readonly keyring: Keyring;
  /** Resolves once every other processor of the erased streams has passed the position (EventProcessors.waitForAllBut). */
  readonly processedByOthers: (position: Position, erasedStreams: readonly string[]) => Promise<void>;
}

/**
 * Permanent deletion of a content, driven by `knowledge.ContentDeleted` (a request, or a
 * collection's cascade): once every other processor of content streams has passed it (read
 * models and indexes dropped it), the content's original file goes, its data key is shredded,
 * so its words are noise in any copy (a backup, a collection's re-index events), and its stream
 * is deleted. Its chunk records and points, which hold its words opened, are the chunk purge's
 * (chunk-purges.ts), which runs after this erasure and never the other way round: an erasure
 * that waited for its purge held every other workspace's erasures behind one large content's
 * (this reactor serves them all in log order). Its DELETE waits for both.
 */
export function contentErasureReactor(deps: ErasureDeps & { readonly originals: ContentOriginals }): Reactor {
  return streamErasureReactor(deps, {
    name: KNOWLEDGE_ERASURE,
    streamPrefix: CONTENT_STREAM_PREFIX,
    erasedStream: (event) => (event.type === 'knowledge.ContentDeleted' ? contentStreamId(upcastContentEvent(event).data.contentId) : null),
    keyIdsOf: contentKeyIds,
    // The original file's parts, sealed under the key about to be shredded; and the chunks'
    // purge, where the chunk projection could not record it (ensureDeletionPurge).
    alsoErase: async (events) => {
      for (const event of events) {
        // Only these two are read: a chunk event carries its vectors, not worth parsing again.
        if (event.type !== 'knowledge.ContentAdded' && event.type !== 'knowledge.ContentDeleted') continue;
        const e = upcastContentEvent(event);
        if (e.type === 'knowledge.ContentAdded' && e.data.original !== undefined) await deps.originals.delete(e.data.contentId, e.data.original);
        if (e.type === 'knowledge.ContentDeleted') await ensureDeletionPurge(deps.documents, contentPurgeDoc(e.data, event.position));
      }
    },
  });
}

/**
 * A deleted collection's own stream (its name, description, metadata, settings; its re-index
 * batches, whose texts are sealed under their contents' keys) goes once the cascade and the
 * read models have passed its deletion. A reactor of its own: erasure waits for the other
 * readers of the streams it deletes, and content and collection streams have different ones.
 */
export function collectionErasureReactor(deps: ErasureDeps): Reactor {
  return streamErasureReactor(deps, {
    name: COLLECTION_ERASURE,
    streamPrefix: COLLECTION_STREAM_PREFIX,
    erasedStream: (event) => (event.type === 'knowledge.CollectionDeleted' ? collectionStreamId(upcastCollectionEvent(event).data.collectionId) : null),
    keyIdsOf: () => [],
    alsoErase: async (events) => {
      for (const event of events) {
        if (event.type !== 'knowledge.CollectionDeleted') continue;
        const e = upcastCollectionEvent(event);
        if (e.type === 'knowledge.CollectionDeleted') await ensureDeletionPurge(deps.documents, collectionPurgeDoc(e.data, event.position));
      }
    },
  });
}

/** The data keys of a content event's texts. */
function contentKeyIds(event: RecordedEvent): readonly string[] {
  const texts: ContentText[] = [];
  const e = upcastContentEvent(event);
  switch (e.type) {
    case 'knowledge.ContentAdded':
    case 'knowledge.ContentTextAppended':
    case 'knowledge.ChunkEdited':
      texts.push(e.data.text);
      break;
    case 'knowledge.ContentChunksAdded':
      texts.push(...e.data.chunks.map((c) => c.text));
      break;
    default:
      break;
  }
  return texts.map(keyIdOfText).filter((id): id is string => id !== null);
}
