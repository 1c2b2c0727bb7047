import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { keepSqliteTempFilesIn } from './sqlite-temp-dir';

describe('keepSqliteTempFilesIn', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lore-sqlite-tmpdir-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('points SQLite at a directory under DATA_DIR that only the service user may open', () => {
    const env: NodeJS.ProcessEnv = {};
    const chosen = keepSqliteTempFilesIn(dir, env);
    expect(chosen).toBe(join(dir, '.sqlite-tmp'));
    expect(env['SQLITE_TMPDIR']).toBe(chosen);
    expect(statSync(chosen).mode & 0o777).toBe(0o700);
  });

  it("leaves the operator's SQLITE_TMPDIR as it is", () => {
    const env: NodeJS.ProcessEnv = { SQLITE_TMPDIR: '/srv/sqlite-tmp' };
    expect(keepSqliteTempFilesIn(dir, env)).toBe('/srv/sqlite-tmp');
    expect(env['SQLITE_TMPDIR']).toBe('/srv/sqlite-tmp');
  });
});
