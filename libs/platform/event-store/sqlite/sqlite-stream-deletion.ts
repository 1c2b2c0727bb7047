import type Database from 'better-sqlite3';
import { AppError } from '@lore/platform/kernel';
import type { DeletionStep } from './append-writer.protocol';

/** How often, and how far apart, a WAL purge is tried while a reader holds old frames. */
export const WAL_PURGE_ATTEMPTS = 40;
export const WAL_PURGE_RETRY_MS = 50;

/**
 * Events removed per transaction. A deletion is a tombstone and then pages of this size, each
 * committed on its own, so every other stream's appends get in between: one transaction for a
 * stream of 20,000 events held the write lock (and the writer thread) ~350 ms for every tenant.
 */
export const DELETE_PAGE_EVENTS = 500;
/**
 * ... and bytes of event data: a content's chunk events carry their vectors, and a page of 500
 * of them is megabytes to zero and write while every append waits behind it.
 */
export const DELETE_PAGE_BYTES = 1024 * 1024;

/**
 * `streams.deleted`: 0 live, 1 deleted (no event left), 2 being deleted (tombstoned, its
 * events still being removed a page at a time; the deletion, run again, finishes it). Both
 * non-zero values refuse appends; a store reads a stream being deleted as empty (`SqliteEventStore`).
 */
export const STREAM_DELETED = 1;
export const STREAM_BEING_DELETED = 2;

/**
 * The first step of a deletion, in a transaction of its own: from here on appends to the
 * stream fail. The tombstone keeps when the stream was deleted (the first time), so an audit
 * can tell a recorded permanent deletion from events that went missing.
 */
export function tombstoneStream(db: Database.Database, streamId: string, deletedAt: string): void {
  // A transaction as every other step (one commit counted); a stream deleted before stays
  // deleted (1) while this deletion finds nothing left to remove.
  db.transaction(() =>
    db
      .prepare(
        `INSERT INTO streams (stream_id, revision, deleted, deleted_at) VALUES (?, -1, ${STREAM_BEING_DELETED}, ?)
         ON CONFLICT (stream_id) DO UPDATE SET deleted = CASE WHEN streams.deleted = ${STREAM_DELETED} THEN ${STREAM_DELETED} ELSE ${STREAM_BEING_DELETED} END,
           deleted_at = coalesce(streams.deleted_at, excluded.deleted_at)`,
      )
      .run(streamId, deletedAt),
  ).immediate();
}

/** Whether a deletion of the stream is under way in the file (its tombstone down, events maybe left). */
export function deletionUnderWay(db: Database.Database, streamId: string): boolean {
  return db.prepare('SELECT deleted FROM streams WHERE stream_id = ?').pluck(true).get(streamId) === STREAM_BEING_DELETED;
}

/** The streams a deletion was cut short in (by a crash): a store opening the file reads them as deleted until it is run again. */
export function streamsBeingDeleted(db: Database.Database): string[] {
  return db.prepare(`SELECT stream_id FROM streams WHERE deleted = ${STREAM_BEING_DELETED}`).pluck(true).all() as string[];
}

/**
 * Removes the stream's oldest DELETE_PAGE_EVENTS events in one transaction. Oldest first: the
 * stream's last event, the deletion that drives its erasure, goes with the last page, so an
 * erasure cut short (a crash, a restart of its reactor, a parked retry) finds that event in the
 * log again and runs the deletion again (newest first, it went with the first page, and the
 * rest of the stream stayed for good). When none are left the same transaction marks the
 * stream deleted; returns whether it is.
 */
export function deleteStreamPage(db: Database.Database, streamId: string): boolean {
  return db
    .transaction(() => {
      // Up to DELETE_PAGE_EVENTS, and no more than DELETE_PAGE_BYTES of them past the first.
      const rows = db
        .prepare(`SELECT revision, length(data) + length(metadata) AS bytes FROM events WHERE stream_id = ? ORDER BY revision LIMIT ${DELETE_PAGE_EVENTS}`)
        .raw(true)
        .all(streamId) as Array<[number, number]>;
      let taken = 0;
      for (let bytes = 0; taken < rows.length && (taken === 0 || bytes + (rows[taken]?.[1] ?? 0) <= DELETE_PAGE_BYTES); taken++) bytes += rows[taken]?.[1] ?? 0;
      const last = rows[taken - 1];
      // secure_delete=ON zeroes the cells these rows occupied, in the table and its indexes.
      if (last !== undefined) db.prepare(`DELETE FROM events WHERE stream_id = ? AND revision <= ?`).run(streamId, last[0]);
      if (taken < rows.length || rows.length === DELETE_PAGE_EVENTS) return false;
      db.prepare(`UPDATE streams SET deleted = ${STREAM_DELETED} WHERE stream_id = ?`).run(streamId);
      return true;
    })
    .immediate();
}

/**
 * One try at copying every page back into the database file and truncating the -wal file to
 * zero bytes, so that no page image taken before a delete survives there. False while a reader
 * (another connection or process) holds old frames: the caller retries, then fails with
 * `walNotPurged` so that its caller retries deleteStream (idempotent) instead of believing the
 * data is gone.
 */
export function truncateWal(db: Database.Database): boolean {
  const rows = db.pragma('wal_checkpoint(TRUNCATE)') as Array<{ busy: number }>;
  return rows[0]?.busy !== 1;
}

/** One step of a deletion on the writing connection, whichever thread holds it: `delete-page` answers whether the stream is gone, `truncate-wal` whether the WAL is. */
export function runDeletionStep(db: Database.Database, step: DeletionStep): boolean | null {
  switch (step.op) {
    case 'tombstone':
      tombstoneStream(db, step.streamId, step.deletedAt);
      return null;
    case 'delete-page':
      return deleteStreamPage(db, step.streamId);
    case 'truncate-wal':
      return truncateWal(db);
  }
}

export function walNotPurged(): AppError {
  return new AppError('unavailable', 'stream deleted, but the write-ahead log could not be purged yet; retry the deletion');
}
