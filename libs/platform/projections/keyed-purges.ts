import { AppError, type Position } from '@lore/platform/kernel';
import type { DocumentStore } from '@lore/platform/documents/port';
import type { ProjectionContext } from './projection';
import { purgePosition, type PurgeDoc, type PurgeWorkerDeps } from './purge-worker';

/**
 * Purges named by what they remove: the documents of one collection whose key field holds the
 * purge's id (a deleted webhook's deliveries, a deleted memory's versions, a deleted
 * conversation's messages). What each needs besides, the projection's record and the worker's
 * pages, is the same.
 */
export interface KeyedPurge {
  /** The purge records' collection. */
  readonly records: string;
  /** What is removed: the documents of `collection` whose `key` is the purge's id, oldest by `order` first, a page a transaction. */
  readonly collection: string;
  readonly key: string;
  readonly order: string;
}

/** Whose purge it is: the workspace, and the user for what one user owns (a memory). */
interface PurgeOwner {
  readonly id: string;
  readonly workspaceId: string;
  readonly ownerId?: string;
}

interface KeyedPurgeDoc extends PurgeDoc {
  readonly owner_id?: string;
}

/** Records the purge in the deletion's batch (constant work). Recorded again, it is run again: removing is idempotent. */
export function recordKeyedPurge(context: ProjectionContext, purge: KeyedPurge, d: PurgeOwner, position: Position): void {
  context.upsert(purge.records, { id: d.id, workspace_id: d.workspaceId, ...(d.ownerId === undefined ? {} : { owner_id: d.ownerId }), position: purgePosition(position) } satisfies KeyedPurgeDoc);
}

/** Whether this owner's purge is pending (another workspace's or user's is not: a 404 to them). */
export async function keyedPurgePending(documents: DocumentStore, purge: KeyedPurge, ref: PurgeOwner): Promise<boolean> {
  const found = await documents.collection<KeyedPurgeDoc>(purge.records).get(ref.id);
  return found !== null && found.workspace_id === ref.workspaceId && found.owner_id === ref.ownerId;
}

/** This owner's pending purges (up to `limit`): what a deletion of all of them, repeated, waits for. */
export async function keyedPurgesOf(documents: DocumentStore, purge: KeyedPurge, owner: Omit<PurgeOwner, 'id'>, limit = 1_000): Promise<string[]> {
  const found = await documents.collection<KeyedPurgeDoc>(purge.records).find({ filter: { workspace_id: owner.workspaceId, ...(owner.ownerId === undefined ? {} : { owner_id: owner.ownerId }) }, limit });
  return found.items.map((record) => record.id);
}

/** A page of the purge's documents, `limit` at most, removed (how many; 0 once none is left). */
async function removeKeyedPage(documents: DocumentStore, purge: KeyedPurge, id: string, limit: number): Promise<number> {
  const page = await documents.collection(purge.collection).find({ filter: { [purge.key]: id }, sort: [[purge.key, 'asc'], [purge.order, 'asc']], limit });
  if (page.items.length > 0) await documents.write(page.items.map((doc) => ({ collection: purge.collection, op: 'delete' as const, id: doc.id })));
  return page.items.length;
}

/** What a purge waits for before it removes anything (see `PurgeWorkerDeps.readModelsPassed`). */
interface PurgeWaits {
  settle(position: Position, timeoutMs: number): Promise<void>;
  settleReactor(name: string, position: Position, timeoutMs: number, streams: readonly string[]): Promise<void>;
}

/**
 * What a repeated DELETE does with its command's `not_found`: the stream is erased, but while
 * `pending` (the caller's own purge of it) still runs the erasure is under way, not gone: null
 * (the DELETE follows the purge: 202, or 200 if it ends within the wait). Anything else is thrown.
 */
export function stillPurging(pending: () => Promise<boolean>): (error: unknown) => Promise<null> {
  return async (error) => {
    if (error instanceof AppError && error.code === 'not_found' && (await pending())) return null;
    throw error;
  };
}

/** The erasure a purge follows: its reactor and the stream it erases. */
export interface FollowedErasure {
  readonly reactor: string;
  readonly stream: string;
}

/**
 * A purge's `readModelsPassed`: the read models, then the deletion's erasure, which never waits
 * for the purge. Its end then means the DELETE is done: one repeated once the documents are gone
 * waits for the purge alone. An erasure that parked the deletion (`erasureOf`: its reactor and
 * the erased stream) fails the wait, so the purge stays pending and is tried again, and the
 * DELETE keeps answering 202 until the erasure is retried: the erasure's position alone passes a
 * parked event. A purge no erasure goes with (`erasureOf` null: a content's earlier attempts)
 * follows the read models alone.
 */
export function afterErasure<P extends PurgeDoc>(waits: PurgeWaits, timeoutMs: number, erasureOf: (purge: P) => FollowedErasure | null): PurgeWorkerDeps<P>['readModelsPassed'] {
  return async (position, deletion, purge) => {
    await waits.settle(position, timeoutMs);
    const erasure = erasureOf(purge);
    if (erasure !== null) await waits.settleReactor(erasure.reactor, deletion, timeoutMs, [erasure.stream]);
  };
}

/** A purge worker's own part for a keyed purge: its pages, then the engine made to forget them (the documents held what was deleted). */
export function keyedPurgeWork(documents: DocumentStore, purge: KeyedPurge): Pick<PurgeWorkerDeps<PurgeDoc>, 'records' | 'removePage' | 'afterPages'> {
  return {
    records: purge.records,
    removePage: (record, limit) => removeKeyedPage(documents, purge, record.id, limit),
    afterPages: () => documents.purgeDeleted(),
  };
}
