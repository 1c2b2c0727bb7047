import { parentPort } from 'node:worker_threads';
import type Database from 'better-sqlite3';
import { openPrivateDatabase } from '@lore/platform/sqlite';
import { SqliteAppendWriter } from './sqlite-append-writer';
import { configureConnection } from './sqlite-schema';
import { runDeletionStep } from './sqlite-stream-deletion';
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

/** One connection per store (by handle): two stores of one file in a process each have their own, as on the main thread. */
const writers = new Map<number, Writer>();

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
    // A deletion comes as steps (sqlite-stream-deletion.ts), each a request of its own, so the
    // appends queued meanwhile are served between them; the caller retries a busy WAL purge.
    case 'tombstone':
    case 'delete-page':
    case 'truncate-wal':
      return runDeletionStep(writer(request.handle).db, request);
    case 'close':
      writers.get(request.handle)?.db.close();
      writers.delete(request.handle);
      return null;
  }
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
