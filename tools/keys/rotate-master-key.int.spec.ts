import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { KEY_CHECK_ID, notAtVersion, type KeyringCheckDoc } from '@lore/platform/crypto';
import type { DocumentCollection } from '@lore/platform/documents/port';
import { openSqliteDocumentStore } from '@lore/platform/documents/sqlite';
import { openContextStores } from '@lore/platform/host';
import { loadConfig } from '@lore/platform/runtime';
import { keyFile, loreEnv, readBack, removeDataDir, run, seed, SEEDED_CONTEXTS, startWith, tempDataDir, type RunResult, type Seeded } from './rotation.fixture';

const VALUES_PER_CONTEXT = 300;
const b64 = (key: Buffer): string => key.toString('base64');

function expectOk(result: RunResult): void {
  if (result.code !== 0) throw new Error(`exit ${result.code}: ${result.err}`);
}

/** Every seeded keyring's check doc, and its data keys counted (all, and those not yet at version 2), read directly. */
async function stored(dataDir: string): Promise<{ checks: KeyringCheckDoc[]; keys: number; notAt2: number }> {
  const stores = SEEDED_CONTEXTS.map((context) => openSqliteDocumentStore({ path: join(dataDir, context, 'keyring.db') }));
  const sum = async (count: (keys: DocumentCollection) => Promise<number>): Promise<number> =>
    (await Promise.all(stores.map((s) => count(s.collection('data_keys'))))).reduce((a, b) => a + b, 0);
  try {
    return {
      checks: await Promise.all(stores.map(async (s) => (await s.collection<KeyringCheckDoc>('data_keys').get(KEY_CHECK_ID)) ?? ({} as KeyringCheckDoc))),
      keys: (await sum((keys) => keys.count())) - stores.length,
      notAt2: await sum((keys) => keys.count(notAtVersion(2))),
    };
  } finally {
    await Promise.all(stores.map((s) => s.close()));
  }
}

describe('npm run keys:rotate-master (SQLite stores)', () => {
  let dataDir: string;
  let seeded: Seeded;

  beforeEach(() => {
    dataDir = tempDataDir();
  });

  afterEach(() => {
    removeDataDir(dataDir);
  });

  it('with DATA_DIR/master.key: re-wraps every data key under a generated key, replaces master.key (0600), and every sealed value opens to the original', async () => {
    const env = loreEnv(dataDir);
    seeded = await seed(env, VALUES_PER_CONTEXT);
    const old = keyFile(dataDir);
    const before = await stored(dataDir);

    const result = await run(['--generate'], env);
    expectOk(result);

    const next = keyFile(dataDir);
    expect(next.equals(old)).toBe(false);
    expect(statSync(join(dataDir, 'master.key')).mode & 0o777).toBe(0o600);
    expect(readdirSync(dataDir).filter((f) => f.startsWith('master.key'))).toEqual(['master.key']);
    expect(result.out).not.toContain(b64(next));
    expect(result.out).toContain(
      `Rotated the master key of 3 keyrings (conversations 1→2, keys 1→2, memory 1→2): ${before.keys} data keys re-wrapped in`,
    );
    expect(result.out).toMatch(/No keyring yet: connections, knowledge\.\n.*master\.key now holds the new master key .*old key only as long as you keep such backups/);
    // Not a terminal (CI): a line per context.
    expect(result.err).toMatch(/^memory: \d+ data keys to re-wrap$/m);
    expect(result.err).toMatch(/^memory: \d+ data keys re-wrapped in [\d.]+ s$/m);

    const after = await stored(dataDir);
    expect(after.checks.map((c) => [c.master_version, c.rotation])).toEqual(SEEDED_CONTEXTS.map(() => [2, undefined]));
    expect(after.notAt2).toBe(0);
    expect(after.keys).toBe(before.keys);
    // Lore starts with the new key: every value opens, API key verifiers still match, shredded stays shredded.
    await expect(readBack(env, seeded)).resolves.toEqual({ opened: 3 * VALUES_PER_CONTEXT, verifier: seeded.verifier, shredded: null });
    await expect(startWith(dataDir, old)).rejects.toThrow(/does not match .*wrapped by master key version 2/);
  });

  it('with LORE_MASTER_KEY: prints a generated key once and says to set LORE_MASTER_KEY; a second rotation from it takes LORE_NEW_MASTER_KEY', async () => {
    const old = randomBytes(32);
    seeded = await seed(loreEnv(dataDir, { LORE_MASTER_KEY: b64(old) }), VALUES_PER_CONTEXT);

    const first = await run(['--generate'], loreEnv(dataDir, { LORE_MASTER_KEY: b64(old) }));
    expectOk(first);
    const printed = /New master key \(generated; shown only this once, store it .*\n(\S+)\n/.exec(first.out)?.[1] ?? '';
    expect(Buffer.from(printed, 'base64')).toHaveLength(32);
    expect(first.out.split(printed)).toHaveLength(2);
    expect(first.err).not.toContain(printed);
    expect(first.out).toContain('Set LORE_MASTER_KEY to the generated key printed above before starting Lore');
    expect(existsSync(join(dataDir, 'master.key'))).toBe(false);
    await expect(readBack(loreEnv(dataDir, { LORE_MASTER_KEY: printed }), seeded)).resolves.toMatchObject({ opened: 3 * VALUES_PER_CONTEXT, verifier: seeded.verifier });

    const third = b64(randomBytes(32));
    const second = await run([], loreEnv(dataDir, { LORE_MASTER_KEY: printed, LORE_NEW_MASTER_KEY: third }));
    expectOk(second);
    expect(second.out).not.toContain(third);
    expect(second.out).toContain('(conversations 2→3, keys 2→3, memory 2→3)');
    expect(second.out).toContain('Set LORE_MASTER_KEY to the value of LORE_NEW_MASTER_KEY');
    await expect(readBack(loreEnv(dataDir, { LORE_MASTER_KEY: third }), seeded)).resolves.toEqual({ opened: 3 * VALUES_PER_CONTEXT, verifier: seeded.verifier, shredded: null });
    await expect(startWith(dataDir, Buffer.from(printed, 'base64'))).rejects.toThrow(/wrapped by master key version 3/);
  });

  it.each([
    ['in the first batch', 1],
    ['at the end of the first keyring', 511],
    ['in the last keyring', 1100],
  ])('interrupted %s (master.key): Lore refuses to start, saying to re-run; re-running completes with master.key.next', async (_where, failAfter) => {
    const env = loreEnv(dataDir);
    seeded = await seed(env, VALUES_PER_CONTEXT);
    const old = keyFile(dataDir);
    const total = (await stored(dataDir)).keys;

    const crashed = await run(['--generate'], env, { failAfter, batchSize: 100 });
    expect(crashed.code).toBe(1);
    expect(crashed.err).toContain(`injected failure after re-wrapping`);
    expect(crashed.err).toContain('The rotation is not finished');
    expect(keyFile(dataDir).equals(old)).toBe(true);
    const next = keyFile(dataDir, 'master.key.next');
    expect(statSync(join(dataDir, 'master.key.next')).mode & 0o777).toBe(0o600);
    expect((await stored(dataDir)).notAt2).toBe(total + 3 - failAfter);
    for (const key of [old, next]) {
      await expect(startWith(dataDir, key)).rejects.toThrow(/rotation \(version 1 to 2\) was interrupted.*Re-run `npm run keys:rotate-master`/);
    }

    // The same command again: it finds the new key in master.key.next rather than generating another.
    const resumed = await run(['--generate'], env);
    expectOk(resumed);
    expect(resumed.out).toContain(`${total - failAfter} data keys re-wrapped`);
    expect(keyFile(dataDir).equals(next)).toBe(true);
    expect(existsSync(join(dataDir, 'master.key.next'))).toBe(false);
    await expect(readBack(env, seeded)).resolves.toEqual({ opened: 3 * VALUES_PER_CONTEXT, verifier: seeded.verifier, shredded: null });
  });

  it('interrupted with LORE_MASTER_KEY: resumes only with the same new key, and then completes', async () => {
    const old = b64(randomBytes(32));
    const next = b64(randomBytes(32));
    seeded = await seed(loreEnv(dataDir, { LORE_MASTER_KEY: old }), VALUES_PER_CONTEXT);
    expect((await run([], loreEnv(dataDir, { LORE_MASTER_KEY: old, LORE_NEW_MASTER_KEY: next }), { failAfter: 600 })).code).toBe(1);

    const other = await run([], loreEnv(dataDir, { LORE_MASTER_KEY: old, LORE_NEW_MASTER_KEY: b64(randomBytes(32)) }));
    expect(other).toMatchObject({ code: 1, err: expect.stringMatching(/started with another new key than this one/) });
    expect((await run(['--generate'], loreEnv(dataDir, { LORE_MASTER_KEY: old }))).err).toMatch(/started with another new key/);
    const withNew = await run([], loreEnv(dataDir, { LORE_MASTER_KEY: next, LORE_NEW_MASTER_KEY: b64(randomBytes(32)) }));
    expect(withNew.err).toMatch(/needs that version 1 key as the current key/);

    expectOk(await run([], loreEnv(dataDir, { LORE_MASTER_KEY: old, LORE_NEW_MASTER_KEY: next })));
    await expect(readBack(loreEnv(dataDir, { LORE_MASTER_KEY: next }), seeded)).resolves.toMatchObject({ opened: 3 * VALUES_PER_CONTEXT, verifier: seeded.verifier });
  });

  it('refuses, exit 1, touching nothing: run twice, new key as old, wrong old key, no new key, both new keys, unknown argument', async () => {
    const old = b64(randomBytes(32));
    const next = b64(randomBytes(32));
    seeded = await seed(loreEnv(dataDir, { LORE_MASTER_KEY: old }), 50);
    expectOk(await run([], loreEnv(dataDir, { LORE_MASTER_KEY: old, LORE_NEW_MASTER_KEY: next })));
    const before = await stored(dataDir);

    const cases: Array<[string[], Record<string, string>, RegExp]> = [
      [[], { LORE_MASTER_KEY: old, LORE_NEW_MASTER_KEY: next }, /already wrapped by the new master key: the rotation is complete/],
      [[], { LORE_MASTER_KEY: next, LORE_NEW_MASTER_KEY: next }, /the new master key is the current one \(LORE_MASTER_KEY\)/],
      [[], { LORE_MASTER_KEY: b64(randomBytes(32)), LORE_NEW_MASTER_KEY: b64(randomBytes(32)) }, /current master key does not open this keyring .*wrapped by master key version 2/],
      [[], { LORE_MASTER_KEY: next }, /no new master key: set LORE_NEW_MASTER_KEY .* or pass --generate/],
      [['--generate'], { LORE_MASTER_KEY: next, LORE_NEW_MASTER_KEY: b64(randomBytes(32)) }, /either in LORE_NEW_MASTER_KEY or with --generate/],
      [[], { LORE_MASTER_KEY: next, LORE_NEW_MASTER_KEY: 'too short' }, /LORE_NEW_MASTER_KEY must be 32 bytes/],
      [['--force'], { LORE_MASTER_KEY: next }, /unknown argument --force/],
    ];
    for (const [args, extra, message] of cases) {
      const result = await run(args, loreEnv(dataDir, extra));
      expect({ args, extra, code: result.code, err: result.err }).toEqual({ args, extra, code: 1, err: expect.stringMatching(message) });
      expect(result.err).not.toContain('The rotation is not finished');
    }
    expect(await stored(dataDir)).toMatchObject({ checks: before.checks, keys: before.keys });
    await expect(readBack(loreEnv(dataDir, { LORE_MASTER_KEY: next }), seeded)).resolves.toMatchObject({ opened: 3 * 50 });
  });

  it('refuses without a current key or without any keyring, rather than make one', async () => {
    expect((await run(['--generate'], loreEnv(dataDir))).err).toMatch(/no current master key: LORE_MASTER_KEY is not set and .*master\.key does not exist/);
    expect(existsSync(join(dataDir, 'master.key'))).toBe(false);
    const result = await run(['--generate'], loreEnv(dataDir, { LORE_MASTER_KEY: b64(randomBytes(32)) }));
    expect(result).toMatchObject({ code: 1, err: expect.stringMatching(/no keyring found for any context .*memory\/keyring\.db.*is DATA_DIR/) });
  });

  it('refuses while Lore holds a keyring open on the DATA_DIR, and runs once it has stopped', async () => {
    const env = loreEnv(dataDir);
    seeded = await seed(env, 10);
    const running = await openContextStores(loadConfig(env), 'memory');
    try {
      const refused = await run(['--generate'], env);
      expect(refused).toMatchObject({ code: 1, err: expect.stringMatching(/Lore is running on .*: .*memory\/keyring\.db is in use/) });
      expect(existsSync(join(dataDir, 'master.key.next'))).toBe(false);
      expect((await stored(dataDir)).checks.every((c) => c.rotation === undefined)).toBe(true);
    } finally {
      await running.close();
    }
    expectOk(await run(['--generate'], env));
  });
});
