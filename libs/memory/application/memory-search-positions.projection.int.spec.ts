import { positionToString } from '@lore/platform/kernel';
import { projectionSpec, recordedEvent } from '@lore/platform/testing';
import { memoryPartition } from './memory-search-index.reactor';
import { RECENT_WRITES, memorySearchPositionsProjection } from './memory-search-positions.projection';

/** Per user: the latest memory event's position, and the latest memories written (what a search may index itself). */
const positions = projectionSpec(memorySearchPositionsProjection);

const owner = { workspaceId: 'ws_1', userId: 'user_1' };
/** The memory event at log position `seq`. */
const at = (seq: number, memoryId: string, type = 'memory.MemoryCreated') => ({
  ...recordedEvent(`memory-${memoryId}`, type, type === 'memory.MemoryCreated' ? { memoryId, ...owner, memoryType: 'user', content: `sealed:${memoryId}`, createdAt: '2026-01-01T00:00:00.000Z' } : { memoryId, ...owner, deletedAt: '2026-01-01T00:00:00.000Z' }),
  id: `e${seq}`,
  position: { commit: BigInt(seq), prepare: BigInt(seq) },
});
const pos = (seq: number): string => positionToString({ commit: BigInt(seq), prepare: BigInt(seq) });

describe('memory search positions projection', () => {
  it('keeps the latest position and each memory once, where its latest event lies', async () => {
    await positions
      .given([at(1, 'm1'), at(2, 'm2'), at(3, 'm1', 'memory.MemoryDeleted')])
      .thenDocuments({
        memory_search_positions: [{ id: memoryPartition('ws_1', 'user_1'), position: pos(3), recent: [{ id: 'm2', position: pos(2) }, { id: 'm1', position: pos(3) }], truncated_at: null }],
      });
  });

  it(`keeps ${RECENT_WRITES} memories, and says where it dropped the last one it let go`, async () => {
    const events = Array.from({ length: RECENT_WRITES + 3 }, (_, i) => at(i + 1, `m${i + 1}`));
    await positions.given(events, { oneBatch: true }).thenDocuments({
      memory_search_positions: [
        {
          id: memoryPartition('ws_1', 'user_1'),
          position: pos(RECENT_WRITES + 3),
          recent: Array.from({ length: RECENT_WRITES }, (_, i) => ({ id: `m${i + 4}`, position: pos(i + 4) })),
          truncated_at: pos(3),
        },
      ],
    });
  });
});
