import type Database from 'better-sqlite3';
import { AppError } from '@lore/platform/kernel';

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
 * `streams.deleted`: 0 live, 1 deleted (no event left), 2 being deleted (tombstoned, its
 * events still being removed a page at a time; the deletion, run again, finishes it). Both
 * non-zero values refuse appends.
 */
export const STREAM_DELETED = 1;
export const STREAM_BEING_DELETED = 2;

/**
 * The first step of a deletion, in a transaction of its own: from here on appends to the
 * stream fail. The tombstone keeps when the stream was deleted (the first time), so an audit
 * can tell a recorded permanent deletion from events that went missing.
 */
export function tombstoneStream(db: Database.Database, streamId: string, deletedAt: string): void {
  db.prepare(
    `INSERT INTO streams (stream_id, revision, deleted, deleted_at) VALUES (?, -1, ${STREAM_BEING_DELETED}, ?)
     ON CONFLICT (stream_id) DO UPDATE SET deleted = ${STREAM_BEING_DELETED}, deleted_at = coalesce(streams.deleted_at, excluded.deleted_at)`,
  ).run(streamId, deletedAt);
}

/**
 * Removes the stream's newest DELETE_PAGE_EVENTS events in one transaction (newest first: what
 * is left until the end is the stream's start, a state it once had). When none are left the
 * same transaction marks the stream deleted; returns whether it is.
 */
export function deleteStreamPage(db: Database.Database, streamId: string): boolean {
  return db
    .transaction(() => {
      // secure_delete=ON zeroes the cells these rows occupied, in the table and its indexes.
      const removed = db
        .prepare(
          `DELETE FROM events WHERE position IN (SELECT position FROM events WHERE stream_id = ? ORDER BY revision DESC LIMIT ${DELETE_PAGE_EVENTS})`,
        )
        .run(streamId).changes;
      if (removed === DELETE_PAGE_EVENTS) return false;
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

export function walNotPurged(): AppError {
  return new AppError('unavailable', 'stream deleted, but the write-ahead log could not be purged yet; retry the deletion');
}
