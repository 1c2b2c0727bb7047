import { reactingTo, type Clock } from '@lore/platform/kernel';
import type { EventStore } from '@lore/platform/event-store/port';
import type { DocumentStore } from '@lore/platform/documents/port';
import type { EmbeddingModels } from '@lore/platform/embeddings/port';
import type { Reactor } from '@lore/platform/projections';
import { handleCommand } from '@lore/platform/cqrs';
import type { DataKey } from '@lore/platform/crypto';
import { COLLECTION_STREAM_PREFIX, collectionDecider, collectionStreamId, contentStreamId, upcastCollectionEvent, upcastContentEvent, type CollectionCommand, type EmbeddingModel } from '@lore/knowledge/domain';
import { CHUNKS, type ChunkDoc } from './knowledge.read-models';
import { providerOf } from './embedding-choice';
import { encodeVector, tagsOf } from './chunk-shape';
import type { ContentTexts } from './content-texts';
import { PendingPurges, collectionPurgeId } from './chunk-purges';

const collectionAggregate = { name: 'collection', decider: collectionDecider, upcast: upcastCollectionEvent };
const CHUNKS_PER_EVENT = 64;

/**
 * A model change: every chunk of the collection is embedded again with the new model into
 * the new model's index, beside the old one, which searches keep using; then the switch is
 * one event. After a crash the reactor starts the re-index over (its checkpoint is before the
 * start event): the writes are upserts of the same points. A newer change supersedes a
 * running one: its batches are refused, and it stops.
 */
export function reindexReactor(deps: { readonly events: EventStore; readonly documents: DocumentStore; readonly embeddings: EmbeddingModels; readonly texts: ContentTexts; readonly clock: Clock }): Reactor {
  const append = (collectionId: string, command: CollectionCommand) =>
    handleCommand(deps.events, collectionAggregate, collectionStreamId(collectionId), command, { retries: 10 });
  const purges = new PendingPurges(deps.documents);

  /** The key a content's texts are sealed with (null: plain, added before sealing; undefined: erased since). */
  async function contentKey(contentId: string): Promise<DataKey | null | undefined> {
    const [first] = await deps.events.readStream(contentStreamId(contentId), { maxCount: 1 });
    if (first === undefined) return undefined;
    const added = upcastContentEvent(first);
    return added.type === 'knowledge.ContentAdded' ? deps.texts.keyOf({ textParts: [added.data.text] }) : undefined;
  }

  async function reindex({ collectionId, reindexId, to }: { readonly collectionId: string; readonly reindexId: string; readonly to: EmbeddingModel }): Promise<void> {
    const provider = providerOf(deps.embeddings, to);
    let cursor: string | undefined;
    let superseded = false;
    do {
      // A collection deleted since: its chunks are being purged, nothing to re-index.
      if (await purges.pending([collectionPurgeId(collectionId)])) return;
      const read = await deps.documents
        .collection<ChunkDoc>(CHUNKS)
        .find({ filter: { collection_id: collectionId }, sort: [['content_id', 'asc'], ['chunk_index', 'asc']], limit: CHUNKS_PER_EVENT, ...(cursor === undefined ? {} : { cursor }) });
      // Not the chunks of deleted contents: their points would come back after the purge removed them.
      const purged = await purges.among(read.items);
      const page = { items: read.items.filter((chunk) => !purged(chunk)), nextCursor: read.nextCursor };
      if (page.items.length > 0) {
        const vectors = await provider.embedDocuments(page.items.map((c) => c.content));
        const keys = new Map<string, DataKey | null | undefined>();
        for (const c of page.items) if (!keys.has(c.content_id)) keys.set(c.content_id, await contentKey(c.content_id));
        // Each text sealed under its content's key, so erasing the content erases it here too.
        const chunks = page.items.flatMap((c, i) => {
          const key = keys.get(c.content_id);
          if (key === undefined) return [];
          return [{
            chunkId: c.id,
            contentId: c.content_id,
            chunkIndex: c.chunk_index,
            text: deps.texts.seal(c.content_id, c.content, key),
            source: c.source,
            tags: tagsOf(c.metadata),
            metadata: c.metadata,
            vector: encodeVector(vectors[i] ?? new Float32Array(to.dimensions)),
          }];
        });
        const result = await append(collectionId, { kind: 'reindex-chunks', reindexId, chunks });
        superseded = result.events.length === 0;
      }
      cursor = page.nextCursor ?? undefined;
    } while (cursor !== undefined && !superseded);
    if (!superseded) await append(collectionId, { kind: 'complete-reindex', reindexId, at: deps.clock.now().toISOString() });
  }

  return {
    name: 'knowledge.reindex.v1',
    streamPrefixes: [COLLECTION_STREAM_PREFIX],
    async react(events) {
      for (const recorded of events) {
        const event = upcastCollectionEvent(recorded);
        // Every batch and the switch are caused by the start event (its actor: who changed the model).
        if (event.type === 'knowledge.CollectionReindexStarted') await reactingTo(recorded, 'reindex', () => reindex(event.data));
      }
    },
  };
}
