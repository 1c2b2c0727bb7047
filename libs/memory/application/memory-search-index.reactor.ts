import { isEmbeddingUnavailable, type EmbeddingModels, type EmbeddingProvider } from '@lore/platform/embeddings/port';
import type { EventStore } from '@lore/platform/event-store/port';
import type { ContextLog } from '@lore/platform/cqrs';
import type { VectorPoint, VectorStore, VectorWrite } from '@lore/platform/vectors/port';
import type { Reactor } from '@lore/platform/projections';
import { boundedKey, type RecordedEvent } from '@lore/platform/kernel';
import type { SealedFields } from '@lore/platform/crypto';
import { MEMORY_STREAM_PREFIX, memoryDecider, memoryStreamId, upcastMemoryEvent, type ActiveMemory, type MemoryEvent } from '@lore/memory/domain';
import type { MemoryContent } from './memory-content';
import type { MemoryIndexWrites } from './memory-index-writes';

/**
 * v2: partitions are hashed (`memoryPartition`); v1 spliced the user id in as it was, and a
 * long one exceeded the vector store's id limit. The new name re-indexes every memory from
 * the log, moving each point to its hashed partition.
 */
export const MEMORY_SEARCH_INDEX = 'memory.search-index.v2';

/** What every memory index's name starts with (one per embedding size). */
export const MEMORY_INDEX_PREFIX = 'memories_';

/** One index for every user's memories; each user is its own partition (`memoryPartition`). */
export function memoryIndexName(provider: EmbeddingProvider): string {
  return `${MEMORY_INDEX_PREFIX}${provider.info.dimensions}`;
}

/**
 * A user's partition: a fixed-length hash of the workspace and user ids, whatever their length
 * or characters (both come from callers: the API takes user ids up to 255 characters). The
 * index reactor writes and the search reads through this one function.
 */
export function memoryPartition(workspaceId: string, userId: string): string {
  // Every memory write hashes its owner's partition twice (the positions projection and the
  // index reactor): the partitions of recent users are kept, as the rate limiter keeps its keys.
  // JSON, not a separator: ids come from callers and may hold any character.
  const known = JSON.stringify([workspaceId, userId]);
  const cached = partitions.get(known);
  if (cached !== undefined) return cached;
  const partition = boundedKey('mu', workspaceId, userId);
  if (partitions.size >= PARTITION_CACHE) partitions.clear();
  partitions.set(known, partition);
  return partition;
}

const PARTITION_CACHE = 10_000;
const partitions = new Map<string, string>();

/**
 * Memories as points for hybrid search: the text embedded with the default model, topics as
 * tags, the type as source. A reactor, not a projection: embedding is work with effects
 * (a model), kept off the write path so that writing a memory stays as fast as before; a
 * search first waits for it to pass the caller's own latest write (read-your-writes for search,
 * see `memorySearchPositionsProjection`), never for other users' backlogs.
 * It embeds in log order, one batch (up to the event store's page, 500 events) at a time and
 * checkpoints after each: a user's memory written behind another workspace's flood of memories
 * is searchable only once the index has passed that flood (until then the writer's own search
 * waits, then answers 503); everyone else's searches answer at once.
 * A replaced memory's point is overwritten; a deleted memory's point is deleted here. Erasure
 * does not wait for this reactor: it removes an erased memory's point itself and purges the
 * bytes, and this reactor then never writes that memory's point from what it read before
 * (MemoryIndexWrites). Memories that can no longer be opened (their key already shredded) have
 * nothing to index.
 */
export function memorySearchIndexReactor(deps: {
  readonly events: EventStore;
  readonly vectors: VectorStore;
  readonly embeddings: EmbeddingModels;
  readonly sealed: SealedFields<MemoryContent>;
  readonly log: ContextLog;
  readonly indexWrites: MemoryIndexWrites;
}): Reactor {
  // After the model was found missing: until when memories are left unindexed without trying
  // (no opening of sealed texts, no load attempt per batch), and how often it was found so.
  let missingUntil = 0;
  let missingTimes = 0;
  return {
    name: MEMORY_SEARCH_INDEX,
    streamPrefixes: [MEMORY_STREAM_PREFIX],
    async react(recorded) {
      deps.indexWrites.batchStarted();
      await indexBatch(recorded);
    },
  };

  async function indexBatch(recorded: readonly RecordedEvent[]): Promise<void> {
    const provider = deps.embeddings.get(deps.embeddings.defaultModel);
    if (provider === null) return;
    const modelMissing = Date.now() < missingUntil;
    const index = memoryIndexName(provider);
    await deps.vectors.ensureIndex({ name: index, dimensions: provider.info.dimensions, distance: 'cosine' });
    // Only the last event of each memory in the batch matters.
    const latest = new Map<string, MemoryEvent>();
    // A matched fact (decision `none`) changes nothing: it must not hide an earlier change in the batch.
    for (const event of recorded.map(upcastMemoryEvent)) if (event.type !== 'memory.MemoryMatched') latest.set(event.data.memoryId, event);
    const writes: VectorWrite[] = [];
    const toEmbed: IndexableMemory[] = [];
    for (const event of latest.values()) {
      // Erased since this batch was read: its point is gone, and nothing of it is opened or embedded again.
      if (deps.indexWrites.isErased(event.data.memoryId)) continue;
      const partition = memoryPartition(event.data.workspaceId, event.data.userId);
      if (event.type === 'memory.MemoryDeleted') {
        writes.push({ op: 'delete', index, ids: [event.data.memoryId] });
        continue;
      }
      // Anything but a creation: the memory as it now is (an invalidated one leaves the index, a reinstated one returns).
      const memory = event.type === 'memory.MemoryCreated' ? { ...event.data, superseded: false } : await currentMemory(deps.events, event.data.memoryId);
      if (memory === null) continue; // erased meanwhile
      if (memory.superseded) {
        writes.push({ op: 'delete', index, ids: [event.data.memoryId] });
        continue;
      }
      if (modelMissing) continue; // unsearchable by meaning until replaced, as when the model refuses it
      const content = await openOrNull(deps.sealed, event.data.memoryId, memory.content);
      if (content === null) continue;
      toEmbed.push({ id: event.data.memoryId, partition, memoryType: memory.memoryType, content });
    }
    let vectors: Float32Array[];
    try {
      vectors = await provider.embedDocuments(toEmbed.map((m) => m.content.memory));
    } catch (error) {
      // A busy or restarting model is retried (the runner restarts from the checkpoint). A model
      // that is not installed is not: memories stay writable and readable, only unsearchable by
      // meaning until they are replaced; searching says the model is missing.
      if (!isEmbeddingUnavailable(error) || error.retryable) throw error;
      // Tried again after 30 s, doubling up to 10 min: a deployment without the model pays nothing per memory.
      missingTimes += 1;
      missingUntil = Date.now() + Math.min(MISSING_RETRY_CAP_MS, MISSING_RETRY_MS * 2 ** (missingTimes - 1));
      deps.log.warn({ err: error.message, memories: toEmbed.length, retryInMs: missingUntil - Date.now() }, 'memories not indexed for search: the embedding model is unavailable');
      vectors = [];
      toEmbed.length = 0;
    }
    if (toEmbed.length > 0) missingTimes = 0;
    toEmbed.forEach((m, i) => {
      const vector = vectors[i];
      if (vector !== undefined) writes.push({ op: 'upsert', index, points: [memoryPoint(m, vector)] });
    });
    // Alone among the index's writers (a search's catch-up, erasure), and never a point of a memory erased meanwhile.
    if (writes.length > 0) await deps.indexWrites.alone(() => deps.vectors.write(deps.indexWrites.withoutErased(writes)));
  }
}

/** A memory to index: its id, its owner's partition, its type and its opened content. */
export interface IndexableMemory {
  readonly id: string;
  readonly partition: string;
  readonly memoryType: string;
  readonly content: MemoryContent;
}

/** A memory as a point of the index: what this reactor writes, and a search indexing its caller's own pending writes. */
export function memoryPoint(memory: IndexableMemory, vector: Float32Array): VectorPoint {
  return {
    id: memory.id,
    collectionId: memory.partition,
    vector,
    text: memory.content.memory,
    // No metadata: search filters by topics and type only, and a memory's metadata may
    // nest deeper than the vector store takes (a write it refused would stall this reactor).
    payload: { content_id: memory.id, chunk_index: 0, source: memory.memoryType, tags: memory.content.topics, metadata: {} },
  };
}

const MISSING_RETRY_MS = 30_000;
const MISSING_RETRY_CAP_MS = 10 * 60_000;

export async function openOrNull(sealed: SealedFields<MemoryContent>, memoryId: string, content: string): Promise<MemoryContent | null> {
  try {
    return await sealed.open(memoryId, content);
  } catch {
    return null; // erased: its key is gone, and so is the memory
  }
}

/** The memory folded from its stream (a replacement keeps the type its creation recorded); null once erased or deleted. */
export async function currentMemory(events: EventStore, memoryId: string): Promise<ActiveMemory | null> {
  const state = (await events.readStream(memoryStreamId(memoryId))).map(upcastMemoryEvent).reduce(memoryDecider.evolve, memoryDecider.initialState());
  return state.status === 'active' ? state : null;
}
