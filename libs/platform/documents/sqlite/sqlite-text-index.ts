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
 * with the row (TextIndexedRows); deletions (delete, deleteMany) go through a trigger. Not inserts and updates:
 * a statement with a trigger opens a statement journal, and at every statement journal FTS5
 * flushes its pending terms into a new segment, so each row written in a batch became a
 * segment of its own (~30 % of a batch of message writes, measured). 'secure-delete' makes a
 * deletion remove the document's terms from the index at once, so that purgeDeleted leaves no
 * trace of them in the file.
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
 * Files from before FTS5 entries were written by TextIndexedRows carry insert and update
 * triggers on their text-indexed tables, which would index every row a second time.
 */
export function dropTextWriteTriggers(db: Database.Database, tables: readonly string[]): void {
  if (tables.length === 0) return;
  db.transaction(() => {
    for (const table of tables) for (const event of ['insert', 'update']) db.exec(`DROP TRIGGER IF EXISTS ${textTriggerName(table, event)}`);
  })();
}

type RowId = number | bigint;

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
    this.current = db.prepare(`SELECT rowid, ${textSql('body', field)} AS text FROM ${table} WHERE id = ?`);
    this.insert = db.prepare(`INSERT INTO ${table} (id, body) VALUES (?, ?)`);
    this.update = db.prepare(`UPDATE ${table} SET body = ? WHERE rowid = ?`);
    this.textOf = db.prepare(`SELECT ${textSql('@body', field)}`).pluck(true);
    this.index = db.prepare(`INSERT INTO ${fts} (rowid, text) VALUES (@rowid, ${textSql('@body', field)})`);
    this.unindex = db.prepare(`INSERT INTO ${fts} (${fts}, rowid, text) VALUES ('delete', ?, ?)`);
  }

  upsert(id: string, body: string): void {
    const current = this.current.get(id) as { rowid: RowId; text: string | null } | undefined;
    if (current === undefined) {
      const rowid = this.insert.run(id, body).lastInsertRowid;
      this.index.run({ rowid, body });
      return;
    }
    this.update.run(body, current.rowid);
    if (this.textOf.get({ body }) === current.text) return;
    this.unindex.run(current.rowid, current.text);
    this.index.run({ rowid: current.rowid, body });
  }
}
