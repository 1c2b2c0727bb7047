import Database from 'better-sqlite3';
import type { RecordedEvent } from '@lore/platform/kernel';
import { EVENT_COLUMNS, STREAM_BEING_DELETED, toRecordedEvent, type EventRow } from '@lore/platform/event-store/sqlite';
import type { AuditSource, AuditStream, DeletedStream } from './audit-source';

type Row = EventRow;
const COLUMNS = EVENT_COLUMNS;
/** Rows per read: each page is its own short read, so the audit never holds a WAL snapshot for long. */
const PAGE = 1000;

/**
 * A context's embedded event store (DATA_DIR/<context>/events.db) opened read-only, so the
 * audit can run beside a live Lore: it never takes the write lock, and its reads are short
 * (a long-lived reader would keep deleteStream from truncating the WAL). It reads the tables
 * directly rather than through the adapter, which opens files for writing.
 */
export class SqliteAuditSource implements AuditSource {
  private readonly db: Database.Database;
  private readonly hasChainColumns: boolean;

  constructor(
    readonly context: string,
    path: string,
  ) {
    this.db = new Database(path, { readonly: true, fileMustExist: true });
    this.db.defaultSafeIntegers(true);
    const columns = (this.db.pragma('table_info(streams)') as Array<{ name: string }>).map((c) => c.name);
    // A file no Lore with the hash chain has opened yet lacks its columns.
    this.hasChainColumns = columns.includes('last_hash') && columns.includes('deleted_at');
  }

  async *events(): AsyncIterable<RecordedEvent> {
    const page = this.db.prepare<[bigint, number], Row>(`SELECT ${COLUMNS} FROM events WHERE position > ? ORDER BY position LIMIT ?`);
    let after = -1n;
    for (;;) {
      const rows = page.all(after, PAGE);
      for (const row of rows) yield toRecordedEvent(row);
      const last = rows[rows.length - 1];
      if (last === undefined || rows.length < PAGE) return;
      after = last.position;
    }
  }

  async *streams(): AsyncIterable<AuditStream> {
    const head = this.hasChainColumns ? 'revision, last_hash' : 'revision, NULL AS last_hash';
    const live = this.db.prepare<[string, number], { stream_id: string; revision: bigint; last_hash: string | null }>(
      `SELECT stream_id, ${head} FROM streams WHERE deleted = 0 AND stream_id > ? ORDER BY stream_id LIMIT ?`,
    );
    const headOf = this.db.prepare<[string], { revision: bigint; last_hash: string | null; deleted: bigint }>(`SELECT ${head}, deleted FROM streams WHERE stream_id = ?`);
    const eventsOf = this.db.prepare<[string], Row>(`SELECT ${COLUMNS} FROM events WHERE stream_id = ? ORDER BY revision`);
    // Each stream's head and events are read in one short transaction, so they agree even
    // while Lore appends to it.
    const readStream = this.db.transaction((streamId: string): AuditStream | null => {
      const row = headOf.get(streamId);
      // Its deletion began since the stream was listed: it is among the deleted streams (with what it has left).
      if (row?.deleted === BigInt(STREAM_BEING_DELETED)) return null;
      const events = eventsOf.all(streamId).map(toRecordedEvent);
      // ... or began and ended: every deletion passes through 2, and left nothing.
      if (row !== undefined && row.deleted !== 0n && events.length === 0) return null;
      if (row === undefined) return { streamId, events, unrecorded: 'the stream has no entry in the streams table' };
      if (row.deleted !== 0n) return { streamId, events, unrecorded: 'events of a stream recorded as deleted' };
      return { streamId, events, head: { revision: Number(row.revision), hash: row.last_hash } };
    });
    const present = function* (ids: ReadonlyArray<{ readonly stream_id: string }>): Generator<AuditStream> {
      for (const { stream_id } of ids) {
        const stream = readStream(stream_id);
        if (stream !== null) yield stream;
      }
    };
    let after = '';
    for (;;) {
      const page = live.all(after, PAGE);
      yield* present(page);
      const last = page[page.length - 1];
      if (last === undefined || page.length < PAGE) break;
      after = last.stream_id;
    }
    // Rows whose stream the store has no live record of: inserted behind its back, or left by a
    // finished delete. A stream being deleted (its pages still going) is listed among the deleted.
    const strays = this.db
      .prepare<[], { stream_id: string }>(
        `SELECT DISTINCT stream_id FROM events WHERE stream_id NOT IN (SELECT stream_id FROM streams WHERE deleted IN (0, ${STREAM_BEING_DELETED}))`,
      )
      .all();
    yield* present(strays);
  }

  async deletedStreams(): Promise<DeletedStream[]> {
    const at = this.hasChainColumns ? 'deleted_at' : 'NULL AS deleted_at';
    const left = this.db.prepare<[string], { n: bigint }>('SELECT count(*) AS n FROM events WHERE stream_id = ?');
    return this.db
      .prepare<[], { stream_id: string; deleted_at: string | null; deleted: bigint }>(`SELECT stream_id, ${at}, deleted FROM streams WHERE deleted != 0 ORDER BY stream_id`)
      .all()
      .map((row) => {
        const stream = { streamId: row.stream_id, deletedAt: row.deleted_at };
        return row.deleted === BigInt(STREAM_BEING_DELETED) ? { ...stream, eventsLeft: Number(left.get(row.stream_id)?.n ?? 0n) } : stream;
      });
  }

  async close(): Promise<void> {
    this.db.close();
  }
}

