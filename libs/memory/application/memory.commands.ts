import { newId, type Clock, type ReplyIn, type ValidRequestIn, type WorkspaceQuota } from '@lore/platform/kernel';
import type { EventStore } from '@lore/platform/event-store/port';
import type { DocumentStore } from '@lore/platform/documents/port';
import { handleCommand, type ReadYourWrites } from '@lore/platform/cqrs';
import type { SealedFields } from '@lore/platform/crypto';
import type { MemoryMessages } from '@lore/memory/contracts';
import { memoryDecider, memoryStreamId, ownedMemory, upcastMemoryEvent, type ActiveMemory } from '@lore/memory/domain';
import { toMemoryRecord, type MemoryContent } from './memory-content';
import { MEMORIES, type MemoryDoc } from './memory.read-models';
import { MEMORY_ERASURE } from './memory-erasure.reactor';

const memoryAggregate = { name: 'memory', decider: memoryDecider, upcast: upcastMemoryEvent };

/**
 * Replacing is "make it say X" and deleting "make it gone": both are safe to decide again on
 * top of a concurrent write. With the handler's jittered backoff, 20 lets all of 200
 * simultaneous replaces of one memory through (`npm run bench:contention`); only a command
 * that keeps losing gets 409.
 */
const CONFLICT_RETRIES = 20;

export interface MemoryCommandDeps {
  readonly events: EventStore;
  readonly documents: DocumentStore;
  readonly sealed: SealedFields<MemoryContent>;
  readonly readYourWrites: ReadYourWrites;
  readonly clock: Clock;
  /** Memories a workspace may hold (QUOTA_MEMORIES). */
  readonly quota: WorkspaceQuota;
}

export class MemoryCommands {
  constructor(private readonly deps: MemoryCommandDeps) {}

  async create(command: ValidRequestIn<MemoryMessages, 'create'>): Promise<ReplyIn<MemoryMessages, 'create'>> {
    await this.deps.quota.enforce(command.workspaceId, () => this.deps.documents.collection(MEMORIES).count({ workspace_id: command.workspaceId }));
    const now = this.deps.clock.now();
    const memoryId = newId('mem', now.getTime());
    const at = now.toISOString();
    const content: MemoryContent = { memory: command.memory, topics: command.topics ?? [], metadata: command.metadata ?? {} };
    // The key is durable before any event sealed with it is appended.
    const sealed = this.deps.sealed.seal(memoryId, content, await this.deps.sealed.newKey());
    const result = await handleCommand(
      this.deps.events,
      memoryAggregate,
      memoryStreamId(memoryId),
      { kind: 'create', memoryId, workspaceId: command.workspaceId, userId: command.userId, memoryType: command.memoryType, content: sealed, at },
      { newStream: true, metadata: { actor: command.actor, workspaceId: command.workspaceId } },
    );
    await this.deps.readYourWrites.settle(result.position);
    return toMemoryRecord({ id: memoryId, user_id: command.userId, memory_type: command.memoryType, created_at: at, updated_at: at }, content);
  }

  async replace(command: ValidRequestIn<MemoryMessages, 'replace'>): Promise<ReplyIn<MemoryMessages, 'replace'>> {
    // Filled by the decide step; on a retry it is recomputed against the newer version.
    let replaced: { before: ActiveMemory; old: MemoryContent; next: MemoryContent } | undefined;
    const result = await handleCommand(
      this.deps.events,
      memoryAggregate,
      memoryStreamId(command.memoryId),
      async (state) => {
        // The sealed content is opened only for its owner (the decider applies the same rule).
        const before = ownedMemory(state, command);
        const old = await this.deps.sealed.open(command.memoryId, before.content);
        const next: MemoryContent = { memory: command.memory, topics: command.topics ?? old.topics, metadata: command.metadata ?? old.metadata };
        replaced = { before, old, next };
        const content = this.deps.sealed.seal(command.memoryId, next, await this.deps.sealed.keyOf(before.content));
        return { kind: 'replace' as const, workspaceId: command.workspaceId, userId: command.userId, content, at: this.deps.clock.now().toISOString() };
      },
      { retries: CONFLICT_RETRIES, metadata: { actor: command.actor, workspaceId: command.workspaceId } },
    );
    await this.deps.readYourWrites.settle(result.position);
    const after = ownedMemory(result.state, command);
    if (replaced === undefined) throw new Error('replace decided without reading the memory');
    return { oldMemory: toMemoryRecord(head(replaced.before), replaced.old), newMemory: toMemoryRecord(head(after), replaced.next) };
  }

  /** Answered once the memory is erased; the erasure itself is the reactor's, so it survives a crash. */
  async delete(command: ValidRequestIn<MemoryMessages, 'delete'>): Promise<ReplyIn<MemoryMessages, 'delete'>> {
    const streamId = memoryStreamId(command.memoryId);
    const result = await handleCommand(this.deps.events, memoryAggregate, streamId, this.deleteCommand(command), {
      retries: CONFLICT_RETRIES,
      metadata: { actor: command.actor, workspaceId: command.workspaceId },
    });
    // Deleted before, erasure still pending (say, after a crash): wait for that deletion's erasure.
    const position = result.position ?? (await this.deps.events.readStream(streamId)).at(-1)?.position ?? null;
    // Erasure runs after every other processor, read models included: once it has passed, all has.
    await this.deps.readYourWrites.settleReactor(MEMORY_ERASURE, position);
    return { memoryId: command.memoryId };
  }

  async deleteAllOfUser(scope: ValidRequestIn<MemoryMessages, 'deleteAllOfUser'>): Promise<ReplyIn<MemoryMessages, 'deleteAllOfUser'>> {
    const owned = await this.deps.documents.collection<MemoryDoc>(MEMORIES).find({ filter: { workspace_id: scope.workspaceId, user_id: scope.userId } });
    let deletedCount = 0;
    let last = null;
    for (const doc of owned.items) {
      try {
        const result = await handleCommand(this.deps.events, memoryAggregate, memoryStreamId(doc.id), this.deleteCommand(scope), {
          retries: CONFLICT_RETRIES,
          metadata: { actor: scope.actor, workspaceId: scope.workspaceId },
        });
        if (result.position !== null) {
          deletedCount++;
          last = result.position;
        }
      } catch (error) {
        // Deleted concurrently by another request: already gone, which is what was asked.
        if (!(error instanceof Error && 'code' in error && error.code === 'not_found')) throw error;
      }
    }
    await this.deps.readYourWrites.settleReactor(MEMORY_ERASURE, last);
    return { deletedCount };
  }

  private deleteCommand(owner: { workspaceId: string; userId: string }) {
    return { kind: 'delete' as const, workspaceId: owner.workspaceId, userId: owner.userId, at: this.deps.clock.now().toISOString() };
  }
}

function head(state: ActiveMemory): Pick<MemoryDoc, 'id' | 'user_id' | 'memory_type' | 'created_at' | 'updated_at'> {
  return { id: state.memoryId, user_id: state.userId, memory_type: state.memoryType, created_at: state.createdAt, updated_at: state.updatedAt };
}
