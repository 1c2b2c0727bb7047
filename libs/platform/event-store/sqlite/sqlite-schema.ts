import type Database from 'better-sqlite3';
import type { EventMetadata, RecordedEvent } from '@lore/platform/kernel';

/**
 * Connection settings and tables of the SQLite event store.
 *
 * - WAL lets readers (subscriptions, other processes) run while the single writer commits.
 * - synchronous=FULL fsyncs the WAL on every commit, so an append is durable once its
 *   promise resolves (NORMAL could lose the last commits on power loss).
 * - secure_delete=ON makes SQLite overwrite deleted cells and freed pages with zeros, which
 *   is what turns deleteStream into a physical erasure rather than a logical one.
 */
export function configureConnection(db: Database.Database): void {
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('secure_delete = ON');
  // Another process may hold the write lock for a moment; wait rather than fail at once.
  db.pragma('busy_timeout = 5000');
}

export function createSchema(db: Database.Database): void {
  // AUTOINCREMENT (not a plain rowid) so that positions of deleted tail events are never
  // handed out again: a checkpoint past them must stay past every later event.
  db.exec(`
    CREATE TABLE IF NOT EXISTS events (
      position    INTEGER PRIMARY KEY AUTOINCREMENT,
      id          TEXT    NOT NULL UNIQUE,
      stream_id   TEXT    NOT NULL,
      revision    INTEGER NOT NULL,
      type        TEXT    NOT NULL,
      data        TEXT    NOT NULL,
      metadata    TEXT    NOT NULL,
      recorded_at TEXT    NOT NULL,
      UNIQUE (stream_id, revision)
    );
    CREATE TABLE IF NOT EXISTS streams (
      stream_id  TEXT    PRIMARY KEY,
      revision   INTEGER NOT NULL,
      deleted    INTEGER NOT NULL DEFAULT 0,
      last_hash  TEXT,
      deleted_at TEXT
    ) WITHOUT ROWID;
  `);
  addMissingStreamColumns(db);
  // Deletions under way (streams.deleted = 2, see sqlite-stream-deletion.ts), found at open without reading every stream.
  db.exec('CREATE INDEX IF NOT EXISTS streams_being_deleted ON streams (stream_id) WHERE deleted = 2');
}

/**
 * Files made before the hash chain lack the streams columns it added. Both are nullable:
 * NULL last_hash means the stream's last event predates the chain (the next one links to
 * the genesis value); NULL deleted_at on a tombstone means it was deleted before times
 * were recorded.
 */
function addMissingStreamColumns(db: Database.Database): void {
  const present = new Set((db.pragma('table_info(streams)') as Array<{ name: string }>).map((c) => c.name));
  for (const column of ['last_hash', 'deleted_at']) {
    if (!present.has(column)) db.exec(`ALTER TABLE streams ADD COLUMN ${column} TEXT`);
  }
}

/** Columns every event read selects, in the shape `EventRow` describes. */
export const EVENT_COLUMNS = 'position, id, stream_id, revision, type, data, metadata, recorded_at';

/** Integer columns arrive as bigint: statements run with safeIntegers so positions never lose precision. */
export interface EventRow {
  readonly position: bigint;
  readonly id: string;
  readonly stream_id: string;
  readonly revision: bigint;
  readonly type: string;
  readonly data: string;
  readonly metadata: string;
  readonly recorded_at: string;
}

/** A stored row as the event it is. */
export function toRecordedEvent(row: EventRow): RecordedEvent {
  return {
    id: row.id,
    streamId: row.stream_id,
    type: row.type,
    data: JSON.parse(row.data) as unknown,
    metadata: JSON.parse(row.metadata) as EventMetadata,
    revision: Number(row.revision),
    position: { commit: row.position, prepare: row.position },
    recordedAt: row.recorded_at,
  };
}

export interface StreamRow {
  readonly revision: bigint;
  readonly deleted: bigint;
  /** Hash of the stream's last event; null when that event predates the hash chain. */
  readonly last_hash: string | null;
}

/**
 * SQL for "stream id starts with one of n prefixes". substr counts characters (code points),
 * so callers bind the code-point length of each prefix, not its UTF-16 length.
 */
export function prefixCondition(count: number): string {
  if (count === 0) return '';
  const one = '(substr(stream_id, 1, ?) = ?)';
  return ` AND (${Array.from({ length: count }, () => one).join(' OR ')})`;
}

export function prefixParams(prefixes: readonly string[]): Array<number | string> {
  return prefixes.flatMap((p) => [[...p].length, p]);
}
