import type Database from 'better-sqlite3';
import { AppError } from '@lore/platform/kernel';
import { withTempFilesOnDisk } from '@lore/platform/sqlite';

/** How often, and how far apart, a WAL purge is tried while a reader holds old frames. */
export const WAL_PURGE_ATTEMPTS = 40;
export const WAL_PURGE_RETRY_MS = 50;

/**
 * Deletes a stream's events and records its tombstone, in one transaction on the writing
 * connection (the caller's, or the writer thread's).
 */
export function deleteStreamRows(db: Database.Database, streamId: string, deletedAt: string): void {
  // A stream of any length goes in one statement (see withTempFilesOnDisk).
  withTempFilesOnDisk(db, () =>
    db
      .transaction(() => {
        // secure_delete=ON zeroes the cells these rows occupied, in the table and its indexes.
        db.prepare('DELETE FROM events WHERE stream_id = ?').run(streamId);
        // The tombstone keeps when the stream was deleted (the first time), so an audit can tell a
        // recorded permanent deletion from events that went missing.
        db.prepare(
          'INSERT INTO streams (stream_id, revision, deleted, deleted_at) VALUES (?, -1, 1, ?) ON CONFLICT (stream_id) DO UPDATE SET deleted = 1, deleted_at = coalesce(streams.deleted_at, excluded.deleted_at)',
        ).run(streamId, deletedAt);
      })
      .immediate(),
  );
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
