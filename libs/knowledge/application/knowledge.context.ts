import type { Position } from '@lore/platform/kernel';
import { defineContext } from '@lore/platform/cqrs';
import { afterErasure } from '@lore/platform/projections';
import { handle } from '@lore/platform/transport/port';
import { knowledgeConfig, knowledgeMessages } from '@lore/knowledge/contracts';
import { CollectionCommands } from './collection.commands';
import { ContentCommands } from './content.commands';
import { KnowledgeQueries } from './knowledge.queries';
import { KnowledgeSearch } from './search.query';
import { catalogProjection } from './catalog.projection';
import { chunksProjection } from './chunks.projection';
import { chunkVectorsProjection } from './chunk-vectors.projection';
import { collectionMembersProjection } from './collection-members.projection';
import { collectionCascadeReactor } from './collection-cascade.reactor';
import { IngestionWorkers } from './ingestion/ingestion-workers';
import { ingestionReactor } from './ingestion/ingestion.reactor';
import { reindexReactor } from './reindex.reactor';
import { ExtractionPool } from '@lore/knowledge/extraction';
import { ContentTexts } from './content-texts';
import { ContentOriginals } from './content-originals';
import { originalsRetention } from './originals-retention.worker';
import { COLLECTION_ERASURE, KNOWLEDGE_ERASURE, collectionErasureReactor, contentErasureReactor } from './knowledge-erasure.reactor';
import { knowledgeEventsPublisher } from './knowledge-events.publisher';
import { CHUNKS, COLLECTIONS, CONTENTS } from './knowledge.read-models';
import { COLLECTION_MEMBERS } from './collection-members.projection';
import { collectionStreamId, contentStreamId } from '@lore/knowledge/domain';
import { ChunkPurgeWorker, chunkPurgeErasure } from './chunk-purge.worker';
import { CHUNK_PURGES, attemptPurgeId, collectionPurgeId } from './chunk-purges';

/** How long a reactor may wait for the read models to pass its events (they may be catching up at start-up). */
const READ_MODELS_WAIT_MS = 10 * 60_000;

/** How long erasure may wait for the other processors to pass a deletion. */
const ERASURE_WAIT_MS = 10 * 60_000;

/** The knowledge context: collections, contents, chunks, and search over them; texts sealed at rest, permanently deletable. */
export const knowledgeContext = defineContext({
  name: 'knowledge',
  config: knowledgeConfig,
  build(deps) {
    const messages = knowledgeMessages(deps.config);
    const texts = new ContentTexts(deps.keyring);
    const originals = new ContentOriginals({ ...deps, texts });
    // A deletion's chunks go after its erasure (chunk-purges.ts); its DELETE waits for both.
    const purges = new ChunkPurgeWorker({ ...deps, readModelsPassed: afterErasure(deps.readYourWrites, ERASURE_WAIT_MS, chunkPurgeErasure) });
    const commandDeps = {
      ...deps,
      chunksPurged: (purgeIds: readonly string[], timeoutMs: number) => purges.drained(purgeIds, timeoutMs),
      // Its own purge hurried, its contents' in their turn (each ends after its content's erasure).
      collectionPurged: (collectionId: string, timeoutMs: number) => purges.drainedWhere({ collection_id: collectionId }, [collectionPurgeId(collectionId)], timeoutMs),
    };
    const collections = new CollectionCommands(commandDeps);
    // Re-extraction of kept originals, in this process's reader processes (shared with the gateway's uploads when both run here).
    const extraction = ExtractionPool.shared(deps.config.extraction, deps.log);
    const contents = new ContentCommands(commandDeps, texts, originals, (file, workspaceId) => extraction.extract(file.bytes, { fileName: file.filename, mimeType: file.mimeType, workspaceId }), deps.config.maxUploadBytes, deps.config.quotas);
    const queries = new KnowledgeQueries(deps.documents, deps.vectors);
    const search = new KnowledgeSearch({ ...deps, queries });
    // What an erasure named `name` waits for: every other processor of the erased streams past the deletion.
    const othersPassed = (name: string) => (position: Position, erased: readonly string[]) => deps.readYourWrites.settleAllBut(name, position, ERASURE_WAIT_MS, erased);
    const workers = new IngestionWorkers({
      ...deps,
      texts,
      config: deps.config.processing,
      // The attempt's start recorded the purge (or found none to record) once the read models passed it.
      earlierAttemptsPurged: async (contentId, startedAt, timeoutMs) => {
        await deps.readYourWrites.settle(startedAt, timeoutMs);
        await purges.drained([attemptPurgeId(contentId)], timeoutMs);
      },
    });
    return {
      handlers: [
        handle(messages.createCollection, (c) => collections.create(c)),
        handle(messages.updateCollection, (c) => collections.update(c)),
        handle(messages.deleteCollection, (c) => collections.delete(c)),
        handle(messages.getCollection, (q) => queries.getCollection(q)),
        handle(messages.listCollections, (q) => queries.listCollections(q)),
        handle(messages.admitContent, (q) => contents.admit(q)),
        handle(messages.createContent, (c) => contents.create(c)),
        handle(messages.appendContentText, (c) => contents.appendText(c)),
        handle(messages.deleteContent, (c) => contents.delete(c)),
        handle(messages.reprocessContent, (c) => contents.reprocess(c)),
        handle(messages.putContentOriginalPart, (c) => contents.putOriginalPart(c)),
        handle(messages.getContentOriginalPart, (q) => contents.getOriginalPart(q)),
        handle(messages.getContent, (q) => queries.getContent(q)),
        handle(messages.listContents, (q) => queries.listContents(q)),
        handle(messages.getChunk, (q) => queries.getChunk(q)),
        handle(messages.listChunks, (q) => queries.listChunks(q)),
        handle(messages.updateChunk, (c) => contents.updateChunk(c)),
        handle(messages.deleteChunk, (c) => contents.deleteChunk(c)),
        handle(messages.search, (q) => search.search(q)),
      ],
      auditedAggregates: [
        { collection: COLLECTIONS, streamId: collectionStreamId },
        { collection: CONTENTS, streamId: contentStreamId },
      ],
      projections: [catalogProjection, chunksProjection(texts), chunkVectorsProjection(texts), collectionMembersProjection],
      reactors: [
        knowledgeEventsPublisher(deps.transport),
        ingestionReactor(workers, (position) => deps.readYourWrites.settle(position, READ_MODELS_WAIT_MS)),
        collectionCascadeReactor({ ...deps, membersSettled: (position) => deps.readYourWrites.settle(position, READ_MODELS_WAIT_MS) }),
        reindexReactor({ ...deps, texts }),
        contentErasureReactor({ ...deps, originals, processedByOthers: othersPassed(KNOWLEDGE_ERASURE) }),
        collectionErasureReactor({ ...deps, processedByOthers: othersPassed(COLLECTION_ERASURE) }),
      ],
      workers: [workers, purges, originalsRetention({ ...deps, originals, retentionDays: deps.config.originals.retentionDays })],
      async prepare() {
        const { documents } = deps;
        await documents.collection(COLLECTIONS).ensureIndex(['workspace_id', 'created_at']);
        await documents.collection(CONTENTS).ensureIndex(['workspace_id', 'collection_id', 'created_at']);
        await documents.collection(CONTENTS).ensureIndex(['status', 'updated_at']);
        // The ingestion sweep: the workspaces with pending contents, then each one's oldest.
        await documents.collection(CONTENTS).ensureIndex(['status', 'workspace_id', 'updated_at']);
        await documents.collection(CONTENTS).ensureIndex(['original_kept_at']);
        await documents.collection(CHUNKS).ensureIndex(['workspace_id', 'collection_id', 'content_id', 'chunk_index']);
        await documents.collection(CHUNKS).ensureIndex(['content_id', 'chunk_index']);
        await documents.collection(COLLECTION_MEMBERS).ensureIndex(['collection_id']);
        await documents.collection(CHUNK_PURGES).ensureIndex(['workspace_id', 'position']);
        await documents.collection(CHUNK_PURGES).ensureIndex(['collection_id']);
      },
    };
  },
});
