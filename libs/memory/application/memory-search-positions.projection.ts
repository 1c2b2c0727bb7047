import { positionToString } from '@lore/platform/kernel';
import type { Projection } from '@lore/platform/projections';
import { MEMORY_STREAM_PREFIX, upcastMemoryEvent } from '@lore/memory/domain';
import { memoryPartition } from './memory-search-index.reactor';

/** A memory of the partition and where its latest event lies in the log. */
export interface RecentMemoryWrite {
  readonly id: string;
  readonly position: string;
}

/** Per search partition (a workspace's user), where its latest memory event lies in the log. */
export interface MemorySearchPositionDoc {
  /** The partition's bounded key (`memoryPartition`): no caller's id is kept here as it was given. */
  readonly id: string;
  /** `positionToString` of the partition's latest memory event. */
  readonly position: string;
  /**
   * The partition's most recently written memories (up to RECENT_WRITES, oldest first, one entry
   * per memory). Every memory whose latest event lies after `truncated_at` is among them.
   * Absent in a document of v1 (read while v2 rebuilds).
   */
  readonly recent?: readonly RecentMemoryWrite[];
  /** The position of the last entry dropped from `recent` to keep it bounded; null while none was. */
  readonly truncated_at?: string | null;
  readonly [field: string]: unknown;
}

export const MEMORY_SEARCH_POSITIONS = 'memory_search_positions';
/** How many of a user's latest memory writes a search may take into the index itself (memory-search.query.ts). */
export const RECENT_WRITES = 32;

/**
 * What a search must wait for. A search waits for the search-index reactor to pass the
 * caller's OWN latest memory event, not the head of the whole memory log: waiting for the head,
 * one workspace writing memories faster than the model embeds them made every other
 * workspace's search (and the conversations context endpoint) wait for that backlog and answer
 * 503. A projection, so read-your-writes covers it: once a write is answered, its position is
 * here, and a search right after it waits for the index to take it in. Rebuildable from the
 * log like any projection (positions are the log's own); a deletion moves the position too, so
 * a search after it waits until the point is gone from the index.
 * v2 keeps the partition's recent writes too: when the index lags behind another workspace's
 * backlog, a search indexes the caller's own few pending memories itself rather than wait.
 */
export const memorySearchPositionsProjection: Projection = {
  name: 'memory.search-positions.v2',
  streamPrefixes: [MEMORY_STREAM_PREFIX],
  collections: [MEMORY_SEARCH_POSITIONS],
  async handle(recorded, context) {
    const { data } = upcastMemoryEvent(recorded);
    const id = memoryPartition(data.workspaceId, data.userId);
    const position = positionToString(recorded.position);
    const before = await context.get<MemorySearchPositionDoc>(MEMORY_SEARCH_POSITIONS, id);
    // Events come in log order, and a replay repeats them in order: the memory moves to the end.
    const recent = [...(before?.recent ?? []).filter((write) => write.id !== data.memoryId), { id: data.memoryId, position }];
    const dropped = recent.length > RECENT_WRITES ? recent.splice(0, recent.length - RECENT_WRITES) : [];
    const doc: MemorySearchPositionDoc = { id, position, recent, truncated_at: dropped.at(-1)?.position ?? before?.truncated_at ?? null };
    context.upsert(MEMORY_SEARCH_POSITIONS, doc);
  },
};
