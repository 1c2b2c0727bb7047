import { projectionSpec, recordedEvent } from '@lore/platform/testing';
import { memoryVersionsProjection } from './memory-versions.projection';

/** Every version of each memory (history and export), built from its events; delivered at least once. */
const versions = projectionSpec(memoryVersionsProjection);

const at = (minute: number): string => `2026-01-01T00:${String(minute).padStart(2, '0')}:00.000Z`;
const owner = { workspaceId: 'ws_1', userId: 'user_1' };

const created = (memoryId: string) =>
  recordedEvent(`memory-${memoryId}`, 'memory.MemoryCreated', { memoryId, ...owner, memoryType: 'user', content: `sealed:${memoryId}:1`, createdAt: at(0) }, at(0));
const replaced = (memoryId: string, version: number) =>
  recordedEvent(`memory-${memoryId}`, 'memory.MemoryReplaced', { memoryId, ...owner, version, content: `sealed:${memoryId}:${version}`, replacedAt: at(version) }, at(version));
const deleted = (memoryId: string) => recordedEvent(`memory-${memoryId}`, 'memory.MemoryDeleted', { memoryId, ...owner, deletedAt: at(30) }, at(30));

/** The history entry of `memoryId` at `version` (1: as created). */
const version = (memoryId: string, n: number) => ({
  id: `${memoryId}:${n}`,
  memory_id: memoryId,
  workspace_id: owner.workspaceId,
  user_id: owner.userId,
  version: n,
  event: n === 1 ? 'created' : 'replaced',
  content: `sealed:${memoryId}:${n}`,
  recorded_at: at(n === 1 ? 0 : n),
  provenance: null,
});

describe('memory versions projection', () => {
  it('records the created version', async () => {
    await versions.given([created('mem_1')]).thenDocuments({ memory_versions: [version('mem_1', 1)] });
  });

  it('keeps every version, each once, as replaces arrive', async () => {
    await versions
      .given([created('mem_1'), replaced('mem_1', 2), replaced('mem_1', 3)])
      .thenDocuments({ memory_versions: [version('mem_1', 1), version('mem_1', 2), version('mem_1', 3)] });
  });

  // A deleted memory's versions go afterwards, by the purge worker (version-purges.int.spec.ts), not in the deletion's batch.
  const purge = expect.objectContaining({ id: 'mem_1', workspace_id: owner.workspaceId, owner_id: owner.userId });
  const both = [version('mem_1', 1), version('mem_1', 2), version('mem_2', 1), version('mem_2', 2)];

  it('records the purge of a deleted memory\'s versions, and of no other memory', async () => {
    await versions
      .given([created('mem_1'), replaced('mem_1', 2), created('mem_2'), replaced('mem_2', 2)])
      .when([deleted('mem_1')])
      .thenDocuments({ memory_versions: both, memory_version_purges: [purge] });
  });

  it('builds the same documents when the events arrive in one batch, a deletion included', async () => {
    await versions
      .given([created('mem_1'), replaced('mem_1', 2), created('mem_2'), deleted('mem_1'), replaced('mem_2', 2)], { oneBatch: true })
      .thenDocuments({ memory_versions: both, memory_version_purges: [purge] });
  });

  describe('delivered at least once', () => {
    const history = [created('mem_1'), replaced('mem_1', 2), replaced('mem_1', 3)];

    it('neither duplicates nor rewrites a version when an old replace is delivered again after a newer one', async () => {
      await versions.given(history).whenRedelivered([replaced('mem_1', 2)]).thenUnchanged();
      await versions
        .given(history)
        .whenRedelivered([replaced('mem_1', 2)])
        .thenDocuments({ memory_versions: [version('mem_1', 1), version('mem_1', 2), version('mem_1', 3)] });
    });

    it('is unchanged by the creation delivered again', async () => {
      await versions.given(history).whenRedelivered([created('mem_1')]).thenUnchanged();
    });

    it('is unchanged by a replay of everything, event by event or in one batch', async () => {
      await versions.given(history).whenReplayed().thenUnchanged();
      await versions.given(history).whenReplayed({ oneBatch: true }).thenUnchanged();
    });

    it('records the same purge for a deleted memory replayed from before its deletion', async () => {
      await versions.given([...history, deleted('mem_1')]).whenReplayed().thenUnchanged();
      await versions.given([...history, deleted('mem_1')]).whenRedelivered([deleted('mem_1')]).thenUnchanged();
    });
  });
});
