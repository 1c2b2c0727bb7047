import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { openPrivateDatabase } from '@lore/platform/sqlite';
import { StoredFeedEntry, type EventFeed, type FeedBounds, type FeedPage, type FeedSelector, type FollowOptions, type IntegrationEvent } from '@lore/platform/transport/port';

/**
 * The standalone event feed: integration events in one SQLite table whose AUTOINCREMENT row
 * id is the position, so a client's `Last-Event-ID` stays valid across restarts and after old
 * rows expire. An event id is stored once (a reactor that republishes after a crash adds
 * nothing). Appends made in the same turn of the event loop share one transaction.
 *
 * Durability rides on the event store's: every row is derived from an event already durable
 * there, and the publishers keep their checkpoints here (`FeedCheckpoints`), each written
 * after the rows it covers. So commits need no fsync of their own (WAL, synchronous=NORMAL:
 * the write path's one fsync per batch is the event store's). A process crash loses nothing;
 * a power loss may cut the log of commits short, and then cuts the rows and the checkpoints
 * past them alike: the publishers publish those events again. Positions handed out in a lost
 * tail are never reused: after an unclean stop the next position jumps past any it could hold.
 */
export interface SqliteEventFeedOptions {
  /** `EVENTS_STREAM_MAX_AGE_HOURS`: rows older than this are deleted, as JetStream expires them. */
  readonly maxAgeHours: number;
  readonly now?: () => number;
}

const PAGE = 512;
const PRUNE_EVERY_MS = 60 * 60_000;
/**
 * How far positions jump after an unclean stop: more than a lost tail can hold (the WAL is
 * synced at least every 1,000 pages by SQLite's auto-checkpoint, far fewer rows than this).
 */
export const UNCLEAN_STOP_POSITION_GAP = 1_000_000;

interface Row {
  readonly position: number;
  readonly body: string;
}

interface Pending {
  readonly event: IntegrationEvent;
  readonly done: { resolve: () => void; reject: (error: unknown) => void };
}

export class SqliteEventFeed implements EventFeed {
  private readonly insert: Database.Statement;
  private readonly readCheckpoint: Database.Statement<[string], { value: string }>;
  private readonly writeCheckpoint: Database.Statement<[string, string]>;
  private readonly removeCheckpoint: Database.Statement<[string]>;
  private readonly range: Database.Statement;
  private readonly sequence: Database.Statement;
  private readonly expire: Database.Statement;
  private readonly pages = new Map<string, Database.Statement>();
  private queue: Pending[] = [];
  /** Bumped by every committed append; followers that read everything wait for a change. */
  private version = 0;
  private waiters = new Set<() => void>();
  private readonly pruner: NodeJS.Timeout;
  private closed = false;

  private constructor(
    private readonly db: Database.Database,
    private readonly options: SqliteEventFeedOptions,
  ) {
    this.insert = db.prepare('INSERT OR IGNORE INTO integration_events (event_id, workspace_id, context, type, body, recorded_at) VALUES (?, ?, ?, ?, ?, ?)');
    this.range = db.prepare('SELECT min(position) AS first, max(position) AS last FROM integration_events');
    this.sequence = db.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'integration_events'");
    this.expire = db.prepare('DELETE FROM integration_events WHERE recorded_at < ?');
    this.readCheckpoint = db.prepare('SELECT value FROM feed_checkpoints WHERE name = ?');
    this.writeCheckpoint = db.prepare('INSERT INTO feed_checkpoints (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value');
    this.removeCheckpoint = db.prepare('DELETE FROM feed_checkpoints WHERE name = ?');
    this.prune();
    this.pruner = setInterval(() => this.prune(), PRUNE_EVERY_MS);
    this.pruner.unref();
  }

  static open(path: string, options: SqliteEventFeedOptions): SqliteEventFeed {
    const db = openPrivateDatabase(path, 'feed');
    db.pragma('journal_mode = WAL');
    db.pragma('busy_timeout = 5000');
    db.exec(`
      CREATE TABLE IF NOT EXISTS integration_events (
        position INTEGER PRIMARY KEY AUTOINCREMENT,
        event_id TEXT NOT NULL UNIQUE,
        workspace_id TEXT NOT NULL,
        context TEXT NOT NULL,
        type TEXT NOT NULL,
        body TEXT NOT NULL,
        recorded_at INTEGER NOT NULL
      );
      CREATE INDEX IF NOT EXISTS integration_events_by_workspace ON integration_events (workspace_id, position);
      CREATE INDEX IF NOT EXISTS integration_events_by_time ON integration_events (recorded_at);
      CREATE TABLE IF NOT EXISTS feed_checkpoints (name TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS feed_state (key TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
    `);
    markOpen(db);
    // Rows need no fsync of their own: see the class comment.
    db.pragma('synchronous = NORMAL');
    return new SqliteEventFeed(db, options);
  }

  async getCheckpoint(name: string): Promise<string | null> {
    return this.readCheckpoint.get(name)?.value ?? null;
  }

  /** Written after the rows it covers (the publisher awaited their commit): never durable without them. */
  async saveCheckpoint(name: string, value: string): Promise<void> {
    this.writeCheckpoint.run(name, value);
  }

  async deleteCheckpoint(name: string): Promise<void> {
    this.removeCheckpoint.run(name);
  }

  /** Stores the event (once per event id); resolves when it is committed. */
  append(event: IntegrationEvent): Promise<void> {
    if (this.closed) return Promise.reject(new Error('event feed is closed'));
    return new Promise<void>((resolve, reject) => {
      if (this.queue.length === 0) setImmediate(() => this.flush());
      this.queue.push({ event, done: { resolve, reject } });
    });
  }

  async *follow({ after, selector, signal }: FollowOptions): AsyncGenerator<FeedPage> {
    let position = after;
    while (!signal.aborted && !this.closed) {
      const seen = this.version;
      // The query selects (workspace, context and type are columns): the stored JSON goes out as it is.
      const rows = this.page(selector).all(position, ...this.parameters(selector)) as Row[];
      const page = rows.map((row) => new StoredFeedEntry(row.position, row.body));
      const last = page.at(-1);
      if (last !== undefined) {
        position = last.position;
        yield page;
        if (signal.aborted) return;
      }
      if (rows.length < PAGE && this.version === seen) await this.changed(signal);
    }
  }

  async bounds(): Promise<FeedBounds> {
    const row = this.range.get() as { first: number | null; last: number | null };
    if (row.first !== null && row.last !== null) return { first: row.first, last: row.last };
    // Empty (nothing yet, or everything expired): positions continue from the sequence.
    const sequence = this.sequence.get() as { seq: number } | undefined;
    const last = sequence?.seq ?? 0;
    return { first: last + 1, last };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.flush();
    this.closed = true;
    clearInterval(this.pruner);
    this.wake();
    // A clean stop: closing the last connection checkpoints the WAL into the file, synced.
    this.db.prepare("DELETE FROM feed_state WHERE key = 'open'").run();
    this.db.close();
  }

  private flush(): void {
    const batch = this.queue;
    this.queue = [];
    if (batch.length === 0) return;
    try {
      const now = (this.options.now ?? Date.now)();
      this.db.transaction(() => {
        for (const { event } of batch) {
          const context = event.type.slice(0, event.type.indexOf('.'));
          this.insert.run(event.event_id, event.workspace_id, context, event.type, JSON.stringify(event), now);
        }
      })();
    } catch (error) {
      for (const { done } of batch) done.reject(error);
      return;
    }
    for (const { done } of batch) done.resolve();
    this.version++;
    this.wake();
  }

  /** One prepared statement per selector shape (how many contexts and types). */
  private page(selector: FeedSelector): Database.Statement {
    const contexts = selector.contexts?.length ?? 0;
    const types = selector.types?.length ?? 0;
    const everyWorkspace = selector.workspaceId === null;
    const key = `${contexts}:${types}:${everyWorkspace}`;
    let statement = this.pages.get(key);
    if (statement === undefined) {
      const narrowing = [contexts > 0 ? `context IN (${marks(contexts)})` : '', types > 0 ? `type IN (${marks(types)})` : ''].filter(Boolean);
      const where = narrowing.length === 0 ? '' : ` AND (${narrowing.join(' OR ')})`;
      const workspace = everyWorkspace ? '' : ' AND workspace_id = ?';
      statement = this.db.prepare(`SELECT position, body FROM integration_events WHERE position > ?${workspace}${where} ORDER BY position LIMIT ${PAGE}`);
      this.pages.set(key, statement);
    }
    return statement;
  }

  private parameters(selector: FeedSelector): string[] {
    return [...(selector.workspaceId === null ? [] : [selector.workspaceId]), ...(selector.contexts ?? []), ...(selector.types ?? [])];
  }

  private changed(signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = (): void => {
        this.waiters.delete(done);
        signal.removeEventListener('abort', done);
        resolve();
      };
      this.waiters.add(done);
      signal.addEventListener('abort', done, { once: true });
    });
  }

  private wake(): void {
    for (const waiter of [...this.waiters]) waiter();
  }

  private prune(): void {
    const cutoff = (this.options.now ?? Date.now)() - this.options.maxAgeHours * 3_600_000;
    this.expire.run(cutoff);
  }
}

/**
 * Notes the feed open, durably (synchronous=FULL for this one commit). Found still open, the
 * last stop was unclean and the tail of the log may be lost: the next position jumps by
 * UNCLEAN_STOP_POSITION_GAP, so none handed out before is ever given to another event.
 */
function markOpen(db: Database.Database): void {
  db.pragma('synchronous = FULL');
  db.transaction(() => {
    const open = db.prepare("SELECT value FROM feed_state WHERE key = 'open'").get();
    if (open !== undefined) {
      const updated = db.prepare("UPDATE sqlite_sequence SET seq = seq + ? WHERE name = 'integration_events'").run(UNCLEAN_STOP_POSITION_GAP);
      if (updated.changes === 0) db.prepare("INSERT INTO sqlite_sequence (name, seq) VALUES ('integration_events', ?)").run(UNCLEAN_STOP_POSITION_GAP);
    }
    db.prepare("INSERT INTO feed_state (key, value) VALUES ('open', 1) ON CONFLICT (key) DO NOTHING").run();
  })();
}

const marks = (count: number): string => Array.from({ length: count }, () => '?').join(', ');

/**
 * The standalone deployment's feed: one file in DATA_DIR beside the contexts' stores. The first
 * thing a standalone start opens there, so it creates DATA_DIR when missing (with its parents),
 * readable by the service's user only, as the contexts' directories are.
 */
export function openEmbeddedEventFeed(dataDir: string, maxAgeHours: number): SqliteEventFeed {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  return SqliteEventFeed.open(join(dataDir, 'integration-events.db'), { maxAgeHours });
}
