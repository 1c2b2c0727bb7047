import { parentPort } from 'node:worker_threads';
import type Database from 'better-sqlite3';
import { AppError } from '@lore/platform/kernel';
import { openPrivateDatabase, withTempFilesOnDisk } from '@lore/platform/sqlite';
import { SqliteAppendWriter } from './sqlite-append-writer';
import { configureConnection } from './sqlite-schema';
import { toWireError, toWireOutcome, type WriterReply, type WriterRequest } from './append-writer.protocol';

/**
 * The event store's writer thread (bundled as dist/event-store-writer.js): every write to a
 * SQLite event store file of this process, on a connection of its own. A commit (with its
 * fsync, and the WAL checkpoints SQLite runs after commits) blocks this thread only; the main
 * thread reads on its own connection, which WAL keeps consistent. Requests are served one at a
 * time, in the order they arrive, so a file still has one writer and appends keep their order.
 */
interface Writer {
  readonly db: Database.Database;
  readonly appends: SqliteAppendWriter;
}

const CHECKPOINT_ATTEMPTS = 40;
const CHECKPOINT_RETRY_MS = 50;
/** One connection per store (by handle): two stores of one file in a process each have their own, as on the main thread. */
const writers = new Map<number, Writer>();
const sleeper = new Int32Array(new SharedArrayBuffer(4));

function writer(handle: number): Writer {
  const found = writers.get(handle);
  if (found === undefined) throw new Error(`event store writer: store ${handle} is not open`);
  return found;
}

function serve(request: WriterRequest): unknown {
  switch (request.op) {
    case 'open': {
      const db = openPrivateDatabase(request.path, 'event-store');
      configureConnection(db);
      writers.set(request.handle, { db, appends: new SqliteAppendWriter(db) });
      return null;
    }
    case 'append':
      return writer(request.handle).appends.write(request.batch, request.recordedAt).map(toWireOutcome);
    case 'delete':
      deleteStream(writer(request.handle).db, request.streamId, request.deletedAt);
      return null;
    case 'close':
      writers.get(request.handle)?.db.close();
      writers.delete(request.handle);
      return null;
  }
}

function deleteStream(db: Database.Database, streamId: string, deletedAt: string): void {
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
  purgeWal(db);
}

/**
 * Copies every page back into the database file and truncates the -wal file to zero bytes, so
 * no page image taken before the delete survives there. A reader (the main thread's connection,
 * another process) can hold old frames for a moment: retry, waiting on this thread only, then
 * fail loudly so the caller retries deleteStream (which is idempotent) instead of believing the
 * data is gone.
 */
function purgeWal(db: Database.Database): void {
  for (let attempt = 0; attempt < CHECKPOINT_ATTEMPTS; attempt++) {
    const rows = db.pragma('wal_checkpoint(TRUNCATE)') as Array<{ busy: number }>;
    if (rows[0]?.busy !== 1) return;
    Atomics.wait(sleeper, 0, 0, CHECKPOINT_RETRY_MS);
  }
  throw new AppError('unavailable', 'stream deleted, but the write-ahead log could not be purged yet; retry the deletion');
}

parentPort?.on('message', ({ id, request }: { id: number; request: WriterRequest }) => {
  let reply: WriterReply;
  try {
    reply = { id, ok: true, value: serve(request) };
  } catch (error) {
    reply = { id, ok: false, error: toWireError(error) };
  }
  parentPort?.postMessage(reply);
});
