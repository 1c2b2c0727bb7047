import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, watch, type FSWatcher } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { buildDistOnce, freePort, REPO_ROOT, until } from '@lore/platform/testing';

const SECRET = 'sqlite-temp-dir-secret';

/**
 * SQLite keeps temporary files (statement journals, sorts) in memory, except around a bulk
 * delete (withTempFilesOnDisk), whose journal holds page images of the deleted text: the
 * standalone process points those at DATA_DIR/.sqlite-tmp, made private before any store opens,
 * never the shared temp directory. A conversation's deletion was such a bulk delete; its messages
 * now go by the purge worker, a page of 100 at a time, their journals in memory: no file at all.
 * (That SQLite's spills go where SQLITE_TMPDIR points is sqlite-temp-files.int.spec.ts's.)
 * SQLite reads SQLITE_TMPDIR once, at a process's first open, so this runs the built app in a
 * process of its own, with TMPDIR (SQLite's fallback) pointing at a watched folder.
 */
describe('SQLite temporary files of the standalone app', () => {
  const root = mkdtempSync(join(tmpdir(), 'lore-sqlite-temp-dir-'));
  const dataDir = join(root, 'data');
  const sharedTemp = join(root, 'shared-tmp');
  let child: ChildProcess | undefined;
  afterAll(async () => {
    if (child !== undefined && child.exitCode === null) {
      const exited = new Promise((resolve) => child?.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(root, { recursive: true, force: true });
  });

  it("have a private directory in DATA_DIR, and none is written, shared or private, while a conversation's messages are deleted", async () => {
    buildDistOnce();
    mkdirSync(sharedTemp, { recursive: true });
    const port = await freePort();
    const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, TMPDIR: sharedTemp, AUTH_JWT_SECRET: SECRET, LOG_LEVEL: 'silent', LORE_MASTER_KEY: '' };
    delete env['SQLITE_TMPDIR'];
    child = spawn(process.execPath, [join(REPO_ROOT, 'dist', 'standalone.js')], { env, stdio: ['ignore', 'ignore', 'inherit'] });
    const url = `http://127.0.0.1:${port}`;
    await until(() => fetch(`${url}/ready`).then((r) => r.status, () => 0), (status) => status === 200, 60_000);

    const privateTemp = join(dataDir, '.sqlite-tmp');
    expect(existsSync(privateTemp)).toBe(true);
    expect(statSync(privateTemp).mode & 0o777).toBe(0o700);
    const seen = { shared: 0, dataDir: 0 };
    // SQLite unlinks a temp file as soon as it opens it: only a watch sees it pass.
    const watchers: FSWatcher[] = [];
    try {
      watchers.push(watch(sharedTemp, () => void seen.shared++), watch(privateTemp, () => void seen.dataDir++));
      const token = await new SignJWT({ workspace_id: 'w' }).setProtectedHeader({ alg: 'HS256' }).setSubject('u').setExpirationTime('1h').sign(new TextEncoder().encode(SECRET));
      const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
      const created = await fetch(`${url}/api/v1/conversations`, { method: 'POST', headers, body: JSON.stringify({ title: 'to delete' }) });
      const { id } = (await created.json()) as { id: string };
      const text = 'a message long enough that its pages add up, about the weather and the tea we had '.repeat(4);
      for (let i = 0; i < 300; i += 10) {
        const answers = await Promise.all(Array.from({ length: 10 }, (_, k) => fetch(`${url}/api/v1/conversations/${id}/messages`, { method: 'POST', headers, body: JSON.stringify({ content: `${i + k} ${text}`, role: (i + k) % 2 === 0 ? 'user' : 'assistant' }) })));
        expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 201));
      }
      expect((await fetch(`${url}/api/v1/conversations/${id}`, { method: 'DELETE', headers })).status).toBe(200);
      expect((await fetch(`${url}/api/v1/messages?limit=10`, { headers }).then((r) => r.json())) as { total_count: number }).toMatchObject({ total_count: 0 });
      // Let the watches' events arrive.
      await new Promise((resolve) => setTimeout(resolve, 300));
    } finally {
      for (const watcher of watchers) watcher.close();
    }
    expect(seen).toEqual({ shared: 0, dataDir: 0 });
  }, 120_000);
});
