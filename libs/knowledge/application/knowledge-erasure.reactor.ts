import type { Position, RecordedEvent } from '@lore/platform/kernel';
import type { EventStore } from '@lore/platform/event-store/port';
import type { DocumentStore } from '@lore/platform/documents/port';
import type { Reactor } from '@lore/platform/projections';
import type { VectorStore } from '@lore/platform/vectors/port';
import { streamErasureReactor, type Keyring } from '@lore/platform/crypto';
import { COLLECTION_STREAM_PREFIX, CONTENT_STREAM_PREFIX, collectionStreamId, contentStreamId, upcastCollectionEvent, upcastContentEvent, type ContentText } from '@lore/knowledge/domain';
import { keyIdOfText } from './content-texts';
import type { ContentOriginals } from './content-originals';
import { collectionPurgeId } from './chunk-purges';
import { CHUNKS } from './knowledge.read-models';

export const KNOWLEDGE_ERASURE = 'knowledge.erasure.v1';
export const COLLECTION_ERASURE = 'knowledge.collection-erasure.v1';

interface ErasureDeps {
  readonly events: EventStore;
  readonly documents: DocumentStore;
  readonly keyring: Keyring;
  readonly vectors: VectorStore;
  /** Resolves once every other processor of the erased streams has passed the position (EventProcessors.waitForAllBut). */
  readonly processedByOthers: (name: string, position: Position, erasedStreams: readonly string[]) => Promise<void>;
  /** Resolves once the purge worker has removed the chunks of these contents (or `collection:<id>`), see chunk-purges.ts. */
  readonly chunksPurged: (purgeIds: readonly string[]) => Promise<void>;
}

/** Every other processor, then the purge of the erased aggregates' chunks (their texts, opened, are in the chunk records and points). */
function othersThenPurges(deps: ErasureDeps, name: string, prefix: string, purgeId: (id: string) => string) {
  return async (position: Position, erased: readonly string[]): Promise<void> => {
    await deps.processedByOthers(name, position, erased);
    await deps.chunksPurged(erased.map((streamId) => purgeId(streamId.slice(prefix.length))));
  };
}

/**
 * Permanent deletion of a content, driven by `knowledge.ContentDeleted` (a request, or a
 * collection's cascade): once every other processor of content streams has passed it (read
 * models and indexes dropped it), the content's data key is shredded, so its words are noise
 * in any copy (a backup, a collection's re-index events); its stream is deleted, and the
 * document and vector stores purge what they deleted (SQLite secure_delete, WAL truncated,
 * the keyword index's records and vocabulary).
 */
export function contentErasureReactor(deps: ErasureDeps & { readonly originals: ContentOriginals }): Reactor {
  return streamErasureReactor({ ...deps, processedByOthers: othersThenPurges(deps, KNOWLEDGE_ERASURE, CONTENT_STREAM_PREFIX, (contentId) => contentId) }, {
    name: KNOWLEDGE_ERASURE,
    streamPrefix: CONTENT_STREAM_PREFIX,
    erasedStream: (event) => (event.type === 'knowledge.ContentDeleted' ? contentStreamId(upcastContentEvent(event).data.contentId) : null),
    keyIdsOf: contentKeyIds,
    // The original file's parts (sealed under the key about to be shredded) go first; then any
    // chunk the purge did not see (the vector read model rebuilt after it ran, say): indexed lookups that find none otherwise.
    alsoErase: async (events) => {
      for (const event of events) {
        if (event.type !== 'knowledge.ContentAdded') continue;
        const added = upcastContentEvent(event);
        if (added.type !== 'knowledge.ContentAdded') continue;
        if (added.data.original !== undefined) await deps.originals.delete(added.data.contentId, added.data.original);
        await deps.documents.write([{ collection: CHUNKS, op: 'deleteMany', filter: { content_id: added.data.contentId } }]);
        await deps.vectors.write([{ op: 'deleteWhere', collections: [added.data.collectionId], filter: { content_id: added.data.contentId } }]);
      }
    },
    afterwards: () => deps.vectors.purgeDeleted(),
  });
}

/**
 * A deleted collection's own stream (its name, description, metadata, settings; its re-index
 * batches, whose texts are sealed under their contents' keys) goes once the cascade and the
 * read models have passed its deletion. A reactor of its own: erasure waits for the other
 * readers of the streams it deletes, and content and collection streams have different ones.
 */
export function collectionErasureReactor(deps: ErasureDeps): Reactor {
  return streamErasureReactor({ ...deps, processedByOthers: othersThenPurges(deps, COLLECTION_ERASURE, COLLECTION_STREAM_PREFIX, collectionPurgeId) }, {
    name: COLLECTION_ERASURE,
    streamPrefix: COLLECTION_STREAM_PREFIX,
    erasedStream: (event) => (event.type === 'knowledge.CollectionDeleted' ? collectionStreamId(upcastCollectionEvent(event).data.collectionId) : null),
    keyIdsOf: () => [],
    afterwards: () => deps.vectors.purgeDeleted(),
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
