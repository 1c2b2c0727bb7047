import { positionToString } from '@lore/platform/kernel';
import type { Projection } from '@lore/platform/projections';
import { MEMORY_STREAM_PREFIX, upcastMemoryEvent } from '@lore/memory/domain';
import { memoryPartition } from './memory-search-index.reactor';

/** Per search partition (a workspace's user), where its latest memory event lies in the log. */
export interface MemorySearchPositionDoc {
  /** The partition's bounded key (`memoryPartition`): no caller's id is kept here as it was given. */
  readonly id: string;
  /** `positionToString` of the partition's latest memory event. */
  readonly position: string;
  readonly [field: string]: unknown;
}

export const MEMORY_SEARCH_POSITIONS = 'memory_search_positions';

/**
 * What a search must wait for. A search waits for the search-index reactor to pass the
 * caller's OWN latest memory event, not the head of the whole memory log: waiting for the head,
 * one workspace writing memories faster than the model embeds them made every other
 * workspace's search (and the conversations context endpoint) wait for that backlog and answer
 * 503. A projection, so read-your-writes covers it: once a write is answered, its position is
 * here, and a search right after it waits for the index to take it in. Rebuildable from the
 * log like any projection (positions are the log's own); a deletion moves the position too, so
 * a search after it waits until the point is gone from the index.
 */
export const memorySearchPositionsProjection: Projection = {
  name: 'memory.search-positions.v1',
  streamPrefixes: [MEMORY_STREAM_PREFIX],
  collections: [MEMORY_SEARCH_POSITIONS],
  async handle(recorded, context) {
    const { data } = upcastMemoryEvent(recorded);
    const doc: MemorySearchPositionDoc = { id: memoryPartition(data.workspaceId, data.userId), position: positionToString(recorded.position) };
    // Events come in log order, and a replay repeats them in order: the last one wins.
    context.upsert(MEMORY_SEARCH_POSITIONS, doc);
  },
};
