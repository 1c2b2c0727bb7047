/**
 * The documents store's text indexes: one FTS5 table per text-indexed docs table, over one
 * JSON field of its bodies (see textIndexParts).
 */
import type Database from 'better-sqlite3';

/**
 * A docs table's FTS5 table, quoted. Collection names cannot hold `$`, so neither this name nor
 * FTS5's shadow tables (`<name>_data`, `<name>_idx`, ...) can meet another collection's tables.
 */
export function textTableName(table: string): string {
  return `"${table}$fts"`;
}

export interface TextIndex {
  /** The FTS5 table, quoted. */
  readonly fts: string;
  readonly field: string;
}

/** Only strings are searchable; anything else indexes as NULL (no words). */
function textSql(row: string, field: string): string {
  return `IIF(json_type(${row}, '$.${field}') = 'text', json_extract(${row}, '$.${field}'), NULL)`;
}

/**
 * An external-content FTS5 table over the docs table's rowids, reading the field through a
 * view (so that FTS5's 'rebuild' and 'integrity-check' work). upsertRow writes a row's terms
 * with the row (TextIndexedRows); deletions (delete, deleteMany) go through a trigger. Not
 * inserts and updates: a statement with a trigger opens a statement journal, and at every
 * statement journal FTS5 flushes its pending terms into a new segment, so each row written in
 * a batch became a segment of its own (~30 % of a batch of message writes, measured).
 * 'secure-delete' makes a deletion remove the document's terms from the index at once, so that
 * purgeDeleted leaves no trace of them in the file.
 * Rowids must stay stable: VACUUM may renumber a table without an INTEGER PRIMARY KEY, after
 * which the index needs `INSERT INTO <fts>(<fts>) VALUES ('rebuild')`.
 */
export function textIndexParts(table: string, field: string) {
  const fts = textTableName(table);
  const view = `${table}$text`;
  const trigger = (event: string): string => textTriggerName(table, event);
  const text = (row: string): string => textSql(row, field);
  return {
    fts,
    create: [
      `CREATE VIEW "${view}" AS SELECT rowid AS doc_rowid, ${text('body')} AS text FROM ${table}`,
      `CREATE VIRTUAL TABLE ${fts} USING fts5(text, content='${view}', content_rowid='doc_rowid', tokenize='porter unicode61 remove_diacritics 2')`,
      `INSERT INTO ${fts} (${fts}, rank) VALUES ('secure-delete', 1)`,
    ],
    deleteTrigger: `CREATE TRIGGER ${trigger('delete')} AFTER DELETE ON ${table} BEGIN
      INSERT INTO ${fts} (${fts}, rowid, text) VALUES ('delete', old.rowid, ${text('old.body')});
    END`,
    dropDeleteTrigger: `DROP TRIGGER ${trigger('delete')}`,
    // Documents written before the index existed.
    backfill: `INSERT INTO ${fts} (${fts}) VALUES ('rebuild')`,
  };
}

function textTriggerName(table: string, event: string): string {
  return `"${table}$fts_${event}"`;
}

/**
 * Drops the insert and update triggers that versions before TextIndexedRows put on text-indexed
 * tables; true when there were any. Inside the caller's write transaction.
 */
function dropTextWriteTriggers(db: Database.Database): boolean {
  const triggers = db.prepare(`SELECT name FROM sqlite_master WHERE type = 'trigger' AND (name GLOB '*$fts_insert' OR name GLOB '*$fts_update')`).pluck(true).all() as string[];
  for (const name of triggers) db.exec(`DROP TRIGGER "${name.replaceAll('"', '""')}"`);
  return triggers.length > 0;
}

type RowId = bigint;

/**
 * Upserts into a text-indexed docs table that keep its FTS5 table in step, as the triggers of
 * earlier versions did: terms out for the old text and in for the new when it changed. SQLite
 * reads the text from the body (textSql), the one definition the view that 'rebuild' and
 * 'integrity-check' read also uses. Callers run each upsert inside a transaction.
 */
export class TextIndexedRows {
  /** The row's rowid and indexed text, if it exists. */
  private readonly current: Database.Statement<[string]>;
  private readonly insert: Database.Statement<[string, string]>;
  private readonly update: Database.Statement<[string, RowId]>;
  /** Plucks the text `@body` indexes. */
  private readonly textOf: Database.Statement<[{ body: string }]>;
  /** Indexes `@body`'s text under `@rowid`. */
  private readonly index: Database.Statement<[{ rowid: RowId; body: string }]>;
  private readonly unindex: Database.Statement<[RowId, string | null]>;

  constructor(db: Database.Database, table: string, { fts, field }: TextIndex) {
    // Rowids as bigints: past 2^53 a number would round to another row's.
    this.current = db.prepare<[string]>(`SELECT rowid, ${textSql('body', field)} AS text FROM ${table} WHERE id = ?`).safeIntegers(true);
    this.insert = db.prepare<[string, string]>(`INSERT INTO ${table} (id, body) VALUES (?, ?)`).safeIntegers(true);
    this.update = db.prepare(`UPDATE ${table} SET body = ? WHERE rowid = ?`);
    this.textOf = db.prepare(`SELECT ${textSql('@body', field)}`).pluck(true);
    this.index = db.prepare(`INSERT INTO ${fts} (rowid, text) VALUES (@rowid, ${textSql('@body', field)})`);
    this.unindex = db.prepare(`INSERT INTO ${fts} (${fts}, rowid, text) VALUES ('delete', ?, ?)`);
  }

  upsert(id: string, body: string): void {
    const current = this.current.get(id) as { rowid: RowId; text: string | null } | undefined;
    if (current === undefined) {
      const rowid = BigInt(this.insert.run(id, body).lastInsertRowid);
      this.index.run({ rowid, body });
      return;
    }
    if (this.update.run(body, current.rowid).changes !== 1) throw new Error(`text index: row ${String(current.rowid)} of document ${id} vanished`);
    if (this.textOf.get({ body }) === current.text) return;
    this.unindex.run(current.rowid, current.text);
    this.index.run({ rowid: current.rowid, body });
  }
}

/**
 * Which docs tables have a text index (from the registry table, so that other connections'
 * indexes count too) and their row writers, forgotten whenever the schema version moves: a
 * write must never miss an index created since, here or on another connection. One pragma
 * read, which SQLite answers from the open transaction's schema cookie.
 */
export class KnownTextIndexes {
  private readonly indexes = new Map<string, TextIndex | null>();
  private readonly rows = new Map<string, TextIndexedRows>();
  private version = -1;
  /** The schema version at which the write path last looked for old triggers. */
  private triggersCheckedAt = -1;
  private readonly readVersion: Database.Statement<[]>;
  private readonly readField: Database.Statement<[string]>;

  constructor(
    private readonly db: Database.Database,
    registry: string,
  ) {
    this.readVersion = db.prepare<[]>('PRAGMA schema_version').pluck(true);
    this.readField = db.prepare<[string]>(`SELECT field FROM ${registry} WHERE collection = ?`).pluck(true);
  }

  /** The registry's answer now, uncached. */
  field(table: string): string | undefined {
    const field = this.readField.get(table);
    return typeof field === 'string' ? field : undefined;
  }

  /** As of the last sync: writes sync once per transaction, reads once per query. */
  of(table: string): TextIndex | null {
    let known = this.indexes.get(table);
    if (known === undefined) {
      const field = this.field(table);
      known = field === undefined ? null : { fts: textTableName(table), field };
      this.indexes.set(table, known);
    }
    return known;
  }

  rowsOf(table: string, index: TextIndex): TextIndexedRows {
    let rows = this.rows.get(table);
    if (rows === undefined) this.rows.set(table, (rows = new TextIndexedRows(this.db, table, index)));
    return rows;
  }

  /** Forgets what was known when the schema has moved. */
  sync(): void {
    const version = Number(this.readVersion.get());
    if (version === this.version) return;
    this.version = version;
    this.forget();
  }

  /**
   * sync for a write transaction: also drops insert and update triggers on text-indexed tables,
   * which a version before TextIndexedRows made (in this file when it was theirs, or since, by
   * one still running on it): with them, every row would be indexed twice. Only writes insert
   * or update rows, so the first write transaction after opening is early enough.
   */
  syncForWrite(): void {
    this.sync();
    // Its own mark: a read's sync (textTable) must not let a moved schema pass unchecked.
    if (this.version === this.triggersCheckedAt) return;
    if (dropTextWriteTriggers(this.db)) this.sync();
    this.triggersCheckedAt = this.version;
  }

  forget(): void {
    this.indexes.clear();
    this.rows.clear();
  }
}

