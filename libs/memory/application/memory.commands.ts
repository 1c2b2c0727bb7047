import { invalid, newId, type Clock, type Position, type ReplyIn, type ValidRequestIn, type WorkspaceQuota } from '@lore/platform/kernel';
import { keyedPurgePending, keyedPurgesOf, outlastsWait, stillPurging } from '@lore/platform/projections';
import type { EventStore } from '@lore/platform/event-store/port';
import type { DocumentStore } from '@lore/platform/documents/port';
import { handleCommand, type ReadYourWrites } from '@lore/platform/cqrs';
import type { SealedFields } from '@lore/platform/crypto';
import type { MemoryMessages, MemoryRecord, MemoryType } from '@lore/memory/contracts';
import { memoryDecider, memoryStreamId, ownedMemory, upcastMemoryEvent, type ActiveMemory, type Provenance } from '@lore/memory/domain';
import { toMemoryDecision, toMemoryRecord, type DecisionNote, type MemoryContent } from './memory-content';
import { MEMORIES, type MemoryDoc } from './memory.read-models';
import { MEMORY_ERASURE } from './memory-erasure.reactor';
import { VERSION_PURGE } from './version-purges';

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
  /** Decision notes, sealed under the memory's own key (erased with it). */
  readonly notes: SealedFields<DecisionNote>;
  readonly readYourWrites: ReadYourWrites;
  /** MEMORY_TTL_BY_TYPE: a memory created without `expiresAt` expires this long after creation. */
  readonly ttlSecondsByType: Partial<Record<MemoryType, number>>;
  readonly clock: Clock;
  /** Memories a workspace may hold (QUOTA_MEMORIES). */
  readonly quota: WorkspaceQuota;
  /** Resolves once these deleted memories' versions are purged (version-purges.ts); rejects (unavailable) after `timeoutMs`. */
  readonly versionsPurged: (memoryIds: readonly string[], timeoutMs: number) => Promise<void>;
}

export class MemoryCommands {
  constructor(private readonly deps: MemoryCommandDeps) {}

  // Not async: it hands add's promise on rather than wrapping it in another (promises per create).
  create(command: ValidRequestIn<MemoryMessages, 'create'>): Promise<ReplyIn<MemoryMessages, 'create'>> {
    const content: MemoryContent = { memory: command.memory, topics: command.topics ?? [], metadata: command.metadata ?? {} };
    if (command.expiresAt != null && Date.parse(command.expiresAt) <= this.deps.clock.now().getTime()) {
      return Promise.reject(invalid(['message', 'expiresAt'], 'expires_at must be in the future', 'value_error'));
    }
    return this.add(command, command.memoryType, content, command.expiresAt);
  }

  /**
   * Creates a memory; with `decided`, one that memory extraction decided to add (its provenance
   * and sealed note recorded on the creation). `expiresAt` undefined: the type's TTL, if any.
   */
  async add(
    owner: Owner,
    memoryType: MemoryType,
    content: MemoryContent,
    expiresAt?: string | null,
    decided?: { readonly provenance: Omit<Provenance, 'note'>; readonly note: DecisionNote },
  ): Promise<MemoryRecord> {
    // Awaited only when a count is needed, and the key only when the pool is empty: each await is a promise per create.
    const { quota } = this.deps;
    if (!quota.admitsAtOnce(owner.workspaceId)) await quota.enforce(owner.workspaceId, () => this.deps.documents.collection(MEMORIES).count({ workspace_id: owner.workspaceId }));
    const now = this.deps.clock.now();
    const memoryId = newId('mem', now.getTime());
    const at = now.toISOString();
    const ttl = this.deps.ttlSecondsByType[memoryType];
    const expires = expiresAt !== undefined ? expiresAt : ttl === undefined ? null : new Date(now.getTime() + ttl * 1000).toISOString();
    // The key is durable before any event sealed with it is appended.
    const key = this.deps.sealed.pooledKey() ?? (await this.deps.sealed.newKey());
    const sealed = this.deps.sealed.seal(memoryId, content, key);
    const provenance = decided && { ...decided.provenance, note: this.deps.notes.seal(memoryId, decided.note, key) };
    const result = await handleCommand(
      this.deps.events,
      memoryAggregate,
      memoryStreamId(memoryId),
      { kind: 'create', memoryId, workspaceId: owner.workspaceId, userId: owner.userId, memoryType, content: sealed, expiresAt: expires, provenance, at },
      { newStream: true, metadata: { actor: owner.actor, workspaceId: owner.workspaceId } },
    );
    await this.deps.readYourWrites.settle(result.position);
    return toMemoryRecord({ id: memoryId, user_id: owner.userId, memory_type: memoryType, created_at: at, updated_at: at, superseded: false, expires_at: expires }, content);
  }

  /**
   * Records a model's decision about an existing memory: `update` makes a new version with
   * `memory` as its text (topics and metadata kept), `invalidate` supersedes it, `none` notes the
   * match. The note is sealed under the memory's key.
   */
  async decide(
    owner: Owner & { readonly memoryId: string },
    decision: { readonly kind: 'update'; readonly memory: string } | { readonly kind: 'invalidate' } | { readonly kind: 'none' },
    provenance: Omit<Provenance, 'note'>,
    note: DecisionNote,
  ): Promise<MemoryRecord> {
    let content: MemoryContent | undefined;
    const result = await handleCommand(
      this.deps.events,
      memoryAggregate,
      memoryStreamId(owner.memoryId),
      async (state) => {
        const memory = ownedMemory(state, owner);
        const key = await this.deps.sealed.keyOf(memory.content);
        const sealedProvenance = { ...provenance, note: this.deps.notes.seal(owner.memoryId, note, key) };
        const at = this.deps.clock.now().toISOString();
        const old = await this.deps.sealed.open(owner.memoryId, memory.content);
        if (decision.kind !== 'update') {
          content = old;
          return { kind: decision.kind === 'none' ? ('match' as const) : ('invalidate' as const), ...owner, provenance: sealedProvenance, at };
        }
        content = { ...old, memory: decision.memory };
        return { kind: 'replace' as const, ...owner, content: this.deps.sealed.seal(owner.memoryId, content, key), provenance: sealedProvenance, at };
      },
      { retries: CONFLICT_RETRIES, metadata: { actor: owner.actor, workspaceId: owner.workspaceId } },
    );
    await this.deps.readYourWrites.settle(result.position);
    if (content === undefined) throw new Error('decision recorded without reading the memory');
    return toMemoryRecord(headOf(ownedMemory(result.state, owner)), content);
  }

  /** Reverts the memory's latest model decision by a new event (the decider says which). */
  async undoDecision(command: ValidRequestIn<MemoryMessages, 'undoDecision'>): Promise<ReplyIn<MemoryMessages, 'undoDecision'>> {
    const provenance: Provenance = {
      decisionId: newId('dec', this.deps.clock.now().getTime()),
      decision: 'undo',
      check: 'user',
      extractionId: null,
      conversationId: null,
      sourceMessageIds: [],
      model: null,
      promptVersion: null,
      undoes: command.decisionId,
      note: '',
    };
    const result = await handleCommand(
      this.deps.events,
      memoryAggregate,
      memoryStreamId(command.memoryId),
      async (state) => {
        const memory = ownedMemory(state, command);
        const note = this.deps.notes.seal(command.memoryId, { fact: null, reason: `undid ${command.decisionId}`, similarity: null }, await this.deps.sealed.keyOf(memory.content));
        return { kind: 'undo' as const, workspaceId: command.workspaceId, userId: command.userId, provenance: { ...provenance, note, undoes: command.decisionId }, at: this.deps.clock.now().toISOString() };
      },
      { retries: CONFLICT_RETRIES, metadata: { actor: command.actor, workspaceId: command.workspaceId } },
    );
    await this.deps.readYourWrites.settle(result.position);
    const after = ownedMemory(result.state, command);
    const content = await this.deps.sealed.open(command.memoryId, after.content);
    return { memory: toMemoryRecord(headOf(after), content), decision: toMemoryDecision(provenance, { fact: null, reason: `undid ${command.decisionId}`, similarity: null }) };
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
    return { oldMemory: toMemoryRecord(headOf(replaced.before), replaced.old), newMemory: toMemoryRecord(headOf(after), replaced.next) };
  }

  /**
   * Answered once erased (the reactor's work, so it survives a crash), its versions purged from the read models included: 202 (`erasing`)
   * when that outlasts the wait (a memory of thousands of versions). Repeated, 202 while the
   * purge runs, 200 when it ends within the wait, then 404.
   */
  async delete(command: ValidRequestIn<MemoryMessages, 'delete'>): Promise<ReplyIn<MemoryMessages, 'delete'>> {
    const streamId = memoryStreamId(command.memoryId);
    const result = await handleCommand(this.deps.events, memoryAggregate, streamId, this.deleteCommand(command), {
      retries: CONFLICT_RETRIES,
      metadata: { actor: command.actor, workspaceId: command.workspaceId },
    }).catch(stillPurging(() => keyedPurgePending(this.deps.documents, VERSION_PURGE, { id: command.memoryId, workspaceId: command.workspaceId, ownerId: command.userId })));
    // Deleted before, erasure still pending (say, after a crash): wait for that deletion's erasure,
    // past the stream's last event as the command read it (no second read of the stream).
    // Erasure runs after every other processor, read models included: once it has passed, all has.
    const erasing = await this.erasedWithin(result?.head ?? null, [command.memoryId]);
    return { memoryId: command.memoryId, ...(erasing ? { erasing } : {}) };
  }

  async deleteAllOfUser(scope: ValidRequestIn<MemoryMessages, 'deleteAllOfUser'>): Promise<ReplyIn<MemoryMessages, 'deleteAllOfUser'>> {
    const owned = await this.deps.documents.collection<MemoryDoc>(MEMORIES).find({ filter: { workspace_id: scope.workspaceId, user_id: scope.userId } });
    const deleted: string[] = [];
    let last = null;
    for (const doc of owned.items) {
      try {
        const result = await handleCommand(this.deps.events, memoryAggregate, memoryStreamId(doc.id), this.deleteCommand(scope), {
          retries: CONFLICT_RETRIES,
          metadata: { actor: scope.actor, workspaceId: scope.workspaceId },
        });
        if (result.position !== null) {
          deleted.push(doc.id);
          last = result.position;
        }
      } catch (error) {
        // Deleted concurrently by another request: already gone, which is what was asked.
        if (!(error instanceof Error && 'code' in error && error.code === 'not_found')) throw error;
      }
    }
    // With the purges of an earlier deletion of theirs still under way (this one repeated).
    const purging = await keyedPurgesOf(this.deps.documents, VERSION_PURGE, { workspaceId: scope.workspaceId, ownerId: scope.userId });
    const erasing = await this.erasedWithin(last, [...new Set([...deleted, ...purging])]);
    return { deletedCount: deleted.length, ...(erasing ? { erasing } : {}) };
  }

  /** Whether the erasure past `position` and these memories' version purges outlast the request's wait (they go on by themselves). */
  private async erasedWithin(position: Position | null, memoryIds: readonly string[]): Promise<boolean> {
    return outlastsWait(
      (async () => {
        await this.deps.readYourWrites.settleReactor(MEMORY_ERASURE, position);
        await this.deps.readYourWrites.settleWithin((timeoutMs) => this.deps.versionsPurged(memoryIds, timeoutMs));
      })(),
    );
  }

  /**
   * The expiry sweep: deletes (reason `expired`) every memory whose `expires_at` has passed, so
   * the erasure reactor erases it as it erases any deletion. Reads already left it out.
   * Returns how many it deleted; at most `batch` per run, the next run takes the rest.
   */
  async expireDue(batch = 500): Promise<number> {
    const now = this.deps.clock.now().toISOString();
    const due = await this.deps.documents.collection<MemoryDoc>(MEMORIES).find({ filter: { expires_at: { $lte: now } }, sort: [['expires_at', 'asc']], limit: batch });
    let expired = 0;
    for (const doc of due.items) {
      try {
        const result = await handleCommand(
          this.deps.events,
          memoryAggregate,
          memoryStreamId(doc.id),
          { kind: 'delete', workspaceId: doc.workspace_id, userId: doc.user_id, at: now, reason: 'expired' },
          { retries: CONFLICT_RETRIES, metadata: { actor: 'system:memory-expiry', workspaceId: doc.workspace_id } },
        );
        if (result.position !== null) expired++;
      } catch (error) {
        // Deleted meanwhile by its owner: gone already.
        if (!(error instanceof Error && 'code' in error && error.code === 'not_found')) throw error;
      }
    }
    return expired;
  }

  private deleteCommand(owner: { workspaceId: string; userId: string }) {
    return { kind: 'delete' as const, workspaceId: owner.workspaceId, userId: owner.userId, at: this.deps.clock.now().toISOString() };
  }
}

interface Owner {
  readonly workspaceId: string;
  readonly userId: string;
  readonly actor: string;
}

function headOf(state: ActiveMemory): Pick<MemoryDoc, 'id' | 'user_id' | 'memory_type' | 'created_at' | 'updated_at' | 'superseded' | 'expires_at'> {
  return { id: state.memoryId, user_id: state.userId, memory_type: state.memoryType, created_at: state.createdAt, updated_at: state.updatedAt, superseded: state.superseded, expires_at: state.expiresAt };
}
