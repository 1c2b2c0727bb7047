import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { renderMetrics } from '@lore/platform/telemetry';
import { openPrivateDatabase } from './private-database';

async function feedCommits(): Promise<number> {
  const { body } = await renderMetrics();
  return Number(/^lore_sqlite_commits_total\{store="feed"\} (\d+)$/m.exec(body)?.[1] ?? 0);
}

describe('openPrivateDatabase', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lore-private-db-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('creates the file readable by its owner only', () => {
    const path = join(dir, 'mode.db');
    openPrivateDatabase(path, 'feed').close();
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it('counts each committed outermost transaction, in every variant, and nothing else', async () => {
    const db = openPrivateDatabase(join(dir, 'count.db'), 'feed');
    db.exec('CREATE TABLE t (x INTEGER)');
    const insert = db.prepare('INSERT INTO t VALUES (?)');
    const one = db.transaction((x: number) => insert.run(x));
    const nested = db.transaction(() => { one(1); one(2); });
    const failing = db.transaction(() => { one(3); throw new Error('rolled back'); });
    const before = await feedCommits();
    one(0);
    one.immediate(0);
    nested();
    expect(() => failing()).toThrow('rolled back');
    expect((await feedCommits()) - before).toBe(3);
    expect(db.prepare('SELECT count(*) AS n FROM t').get()).toEqual({ n: 4 });
    db.close();
  });
});
