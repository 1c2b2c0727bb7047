import { newId, type Clock, type Position } from '@lore/platform/kernel';
import type { EventStore } from '@lore/platform/event-store/port';
import type { DocumentStore } from '@lore/platform/documents/port';
import { handleCommand } from '@lore/platform/cqrs';
import type { ProjectionSet } from '@lore/platform/projections';
import type { CreateMemoryCommand, MemoryRecord, MemoryRef, ReplaceMemoryCommand, UserScope } from '@lore/memory/contracts';
import { memoryDecider, memoryStreamId, upcastMemoryEvent, type MemoryState } from '@lore/memory/domain';
import type { MemoryCipher, MemoryContent } from './memory-content';
import { toMemoryRecord } from './memory-records';
import { MEMORIES, type MemoryDoc } from './memory.read-models';

const memoryAggregate = { decider: memoryDecider, upcast: upcastMemoryEvent };

/** Replacing is "make it say X": safe to decide again on top of a concurrent replace. */
const REPLACE_RETRIES = 5;

export interface MemoryCommandDeps {
  readonly events: EventStore;
  readonly documents: DocumentStore;
  readonly cipher: MemoryCipher;
  readonly projections: ProjectionSet;
  readonly clock: Clock;
  readonly readYourWritesTimeoutMs: number;
}

export class MemoryCommands {
  constructor(private readonly deps: MemoryCommandDeps) {}

  async create(command: CreateMemoryCommand): Promise<{ memory_id: string; message: string; memory: MemoryRecord }> {
    const now = this.deps.clock.now();
    const memoryId = newId('mem', now.getTime());
    const at = now.toISOString();
    const content: MemoryContent = { memory: command.memory, topics: command.topics ?? [], metadata: command.metadata ?? {} };
    // The key is durable before any event sealed with it is appended.
    const sealed = this.deps.cipher.seal(memoryId, content, await this.deps.cipher.newKey());
    const result = await handleCommand(this.deps.events, memoryAggregate, memoryStreamId(memoryId), {
      kind: 'create',
      memoryId,
      workspaceId: command.workspaceId,
      userId: command.userId,
      memoryType: command.memoryType,
      content: sealed,
      at,
    }, { newStream: true, metadata: { actor: command.actor, workspaceId: command.workspaceId } });
    await this.settle(result.position);
    const memory = toMemoryRecord({ id: memoryId, user_id: command.userId, memory_type: command.memoryType, created_at: at, updated_at: at }, content);
    return { memory_id: memoryId, message: 'Memory created successfully', memory };
  }

  async replace(command: ReplaceMemoryCommand): Promise<{ memory_id: string; message: string; old_memory: MemoryRecord; new_memory: MemoryRecord }> {
    // Filled by the decide step; on a retry it is recomputed against the newer version.
    const contents: { old?: MemoryContent; next?: MemoryContent } = {};
    const result = await handleCommand(
      this.deps.events,
      memoryAggregate,
      memoryStreamId(command.memoryId),
      async (state: MemoryState) => {
        const at = this.deps.clock.now().toISOString();
        // Not the caller's memory: decide without opening it, and the decider answers not_found.
        if (state.status !== 'active' || state.userId !== command.userId || state.workspaceId !== command.workspaceId) return { kind: 'replace' as const, workspaceId: command.workspaceId, userId: command.userId, content: '', at };
        const old = await this.deps.cipher.open(command.memoryId, state.content);
        const next = { memory: command.memory, topics: command.topics ?? old.topics, metadata: command.metadata ?? old.metadata };
        contents.old = old;
        contents.next = next;
        const content = this.deps.cipher.seal(command.memoryId, next, await this.deps.cipher.keyOf(state.content));
        return { kind: 'replace' as const, workspaceId: command.workspaceId, userId: command.userId, content, at };
      },
      { retries: REPLACE_RETRIES, metadata: { actor: command.actor, workspaceId: command.workspaceId } },
    );
    await this.settle(result.position);
    const before = result.previous;
    const after = result.state;
    if (before.status !== 'active' || after.status !== 'active' || contents.old === undefined || contents.next === undefined) {
      throw new Error('replace produced no new version'); // the decider throws not_found first
    }
    return {
      memory_id: command.memoryId,
      message: 'Memory replaced successfully',
      old_memory: toMemoryRecord(recordHead(before), contents.old),
      new_memory: toMemoryRecord(recordHead(after), contents.next),
    };
  }

  async delete(ref: MemoryRef): Promise<{ memory_id: string; message: string }> {
    const result = await handleCommand(this.deps.events, memoryAggregate, memoryStreamId(ref.memoryId), {
      kind: 'delete',
      workspaceId: ref.workspaceId,
      userId: ref.userId,
      at: this.deps.clock.now().toISOString(),
    }, { metadata: { actor: ref.actor, workspaceId: ref.workspaceId } });
    const sealed = result.previous.status === 'active' ? [result.previous.content] : [];
    await this.erase([ref.memoryId], sealed, result.position);
    return { memory_id: ref.memoryId, message: 'Memory deleted successfully' };
  }

  async deleteAllOfUser(scope: UserScope): Promise<{ user_id: string; deleted_count: number; message: string }> {
    const owned = await this.deps.documents
      .collection<MemoryDoc>(MEMORIES)
      .find({ filter: { workspace_id: scope.workspaceId, user_id: scope.userId } });
    const erased: string[] = [];
    const sealed: string[] = [];
    let last: Position | null = null;
    for (const doc of owned.items) {
      try {
        const result = await handleCommand(this.deps.events, memoryAggregate, memoryStreamId(doc.id), {
          kind: 'delete',
          workspaceId: scope.workspaceId,
          userId: scope.userId,
          at: this.deps.clock.now().toISOString(),
        }, { metadata: { actor: scope.actor, workspaceId: scope.workspaceId } });
        erased.push(doc.id);
        if (result.previous.status === 'active') sealed.push(result.previous.content);
        last = result.position ?? last;
      } catch (error) {
        // Deleted concurrently by another request: already gone, which is what was asked.
        if (!(error instanceof Error && 'code' in error && error.code === 'not_found')) throw error;
      }
    }
    await this.erase(erased, sealed, last);
    return { user_id: scope.userId, deleted_count: erased.length, message: `Deleted ${erased.length} memories` };
  }

  /**
   * Permanent deletion (SPEC §3 rule 2): once the read models have dropped the memory,
   * shred its key, delete its stream, and make the engines forget the deleted bytes.
   */
  private async erase(memoryIds: readonly string[], sealed: readonly string[], position: Position | null): Promise<void> {
    if (memoryIds.length === 0) return;
    await this.settle(position);
    await this.deps.cipher.shred(sealed);
    for (const id of memoryIds) await this.deps.events.deleteStream(memoryStreamId(id));
    await this.deps.documents.purgeDeleted();
  }

  private async settle(position: Position | null): Promise<void> {
    await this.deps.projections.waitFor(position, this.deps.readYourWritesTimeoutMs);
  }
}

function recordHead(state: Extract<MemoryState, { status: 'active' }>): Pick<MemoryDoc, 'id' | 'user_id' | 'memory_type' | 'created_at' | 'updated_at'> {
  return { id: state.memoryId, user_id: state.userId, memory_type: state.memoryType, created_at: state.createdAt, updated_at: state.updatedAt };
}
