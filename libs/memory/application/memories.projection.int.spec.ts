import { projectionSpec, recordedEvent } from '@lore/platform/testing';
import { memoriesProjection } from './memories.projection';

/** The current version of each memory, built from its events; delivered at least once. */
const memories = projectionSpec(memoriesProjection);

const at = (minute: number): string => `2026-01-01T00:${String(minute).padStart(2, '0')}:00.000Z`;
const owner = { workspaceId: 'ws_1', userId: 'user_1' };

/** Version n of a memory is the n-th event of its stream (revision n - 1); a deletion comes after every version. */
const created = (memoryId: string, content = `sealed:${memoryId}:1`) =>
  recordedEvent(`memory-${memoryId}`, 'memory.MemoryCreated', { memoryId, ...owner, memoryType: 'user', content, createdAt: at(0) }, at(0));
const replaced = (memoryId: string, version: number) => ({
  ...recordedEvent(`memory-${memoryId}`, 'memory.MemoryReplaced', { memoryId, ...owner, version, content: `sealed:${memoryId}:${version}`, replacedAt: at(version) }, at(version)),
  revision: version - 1,
});
const deleted = (memoryId: string) => ({ ...recordedEvent(`memory-${memoryId}`, 'memory.MemoryDeleted', { memoryId, ...owner, deletedAt: at(30) }, at(30)), revision: 30 });

/** The document of `memoryId` at `version` (1: as created). */
const doc = (memoryId: string, version = 1) => ({
  id: memoryId,
  workspace_id: owner.workspaceId,
  user_id: owner.userId,
  memory_type: 'user',
  content: `sealed:${memoryId}:${version}`,
  version,
  created_at: at(0),
  updated_at: at(version === 1 ? 0 : version),
  superseded: false,
  expires_at: null,
  revision: version - 1,
});

describe('memories projection', () => {
  it('creates the document of a new memory at version 1', async () => {
    await memories.given([created('mem_1')]).thenDocuments({ memories: [doc('mem_1')] });
  });

  it('moves the document to each replacing version', async () => {
    await memories.given([created('mem_1'), replaced('mem_1', 2)]).thenDocuments({ memories: [doc('mem_1', 2)] });
    await memories.given([created('mem_1'), replaced('mem_1', 2), replaced('mem_1', 3)]).thenDocuments({ memories: [doc('mem_1', 3)] });
  });

  it('drops the document of a deleted memory, and only that one', async () => {
    await memories
      .given([created('mem_1'), created('mem_2'), replaced('mem_1', 2)])
      .when([deleted('mem_1')])
      .thenDocuments({ memories: [doc('mem_2')] });
  });

  it('builds the same documents when the events arrive in one batch', async () => {
    await memories
      .given([created('mem_1'), replaced('mem_1', 2), created('mem_2'), replaced('mem_1', 3), deleted('mem_2')], { oneBatch: true })
      .thenDocuments({ memories: [doc('mem_1', 3)] });
  });

  describe('delivered at least once', () => {
    const history = [created('mem_1'), replaced('mem_1', 2), replaced('mem_1', 3)];

    it('does not roll back to an older version when an old replace is delivered again', async () => {
      await memories.given(history).whenRedelivered([replaced('mem_1', 2)]).thenUnchanged();
      await memories.given(history).whenRedelivered([replaced('mem_1', 2)]).thenDocuments({ memories: [doc('mem_1', 3)] });
    });

    it('does not roll back to version 1 when the creation is delivered again', async () => {
      await memories.given(history).whenRedelivered([created('mem_1')]).thenUnchanged();
    });

    it('is unchanged by the latest replace delivered again', async () => {
      await memories.given(history).whenRedelivered([replaced('mem_1', 3)]).thenUnchanged();
    });

    it('is unchanged by a replay of everything, event by event or in one batch', async () => {
      await memories.given(history).whenReplayed().thenUnchanged();
      await memories.given(history).whenReplayed({ oneBatch: true }).thenUnchanged();
    });

    it('does not bring a deleted memory back when one of its replaces is delivered again', async () => {
      await memories.given([...history, deleted('mem_1')]).whenRedelivered([replaced('mem_1', 3)]).thenDocuments({ memories: [] });
      await memories.given([...history, deleted('mem_1')]).whenReplayed().thenUnchanged();
    });
  });
});
