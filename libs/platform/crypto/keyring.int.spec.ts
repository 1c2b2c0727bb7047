import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DocumentStore } from '@lore/platform/documents/port';
import { openSqliteDocumentStore } from '@lore/platform/documents/sqlite';
import { seal, unseal } from './aead';
import { Keyring } from './keyring';

describe('Keyring (SQLite document store)', () => {
  let dir: string;
  let path: string;
  const opened: DocumentStore[] = [];
  const openStore = (): DocumentStore => {
    const store = openSqliteDocumentStore({ path, durability: 'full' });
    opened.push(store);
    return store;
  };
  const master = randomBytes(32);

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'lore-keyring-'));
    path = join(dir, 'keys.db');
  });

  afterEach(async () => {
    await Promise.all(opened.splice(0).map((s) => s.close()));
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates a 32-byte data key per aggregate and returns it again', async () => {
    const keyring = await Keyring.open(openStore(), master);
    const a = await keyring.create('memory-a');
    const b = await keyring.create('memory-b');
    expect(a).toHaveLength(32);
    expect(a.equals(b)).toBe(false);
    expect((await keyring.get('memory-a'))?.equals(a)).toBe(true);
    expect((await keyring.get('memory-b'))?.equals(b)).toBe(true);
  });

  it('returns null for an aggregate that never had a key', async () => {
    const keyring = await Keyring.open(openStore(), master);
    expect(await keyring.get('memory-none')).toBeNull();
  });

  it('keeps keys durably: a keyring opened later on the same file reads them', async () => {
    const first = openStore();
    const key = await (await Keyring.open(first, master)).create('memory-a');
    await first.close();
    const reopened = await Keyring.open(openStore(), master);
    expect((await reopened.get('memory-a'))?.equals(key)).toBe(true);
  });

  it('stores data keys wrapped, never in the clear', async () => {
    const store = openStore();
    const key = await (await Keyring.open(store, master)).create('memory-a');
    const doc = await store.collection('data_keys').get('memory-a');
    const stored = JSON.stringify(doc);
    expect(doc).not.toBeNull();
    for (const encoding of ['hex', 'base64', 'base64url'] as const) expect(stored).not.toContain(key.toString(encoding));
  });

  it('shreds: get returns null afterwards, in this keyring and in a fresh one', async () => {
    const store = openStore();
    const keyring = await Keyring.open(store, master);
    const key = await keyring.create('memory-a');
    await keyring.create('memory-b');
    const sealed = seal(key, 'private text', 'memory-a');
    expect(unseal((await keyring.get('memory-a')) ?? Buffer.alloc(32), sealed, 'memory-a').toString()).toBe('private text');

    await keyring.shred(['memory-a']);

    expect(await keyring.get('memory-a')).toBeNull();
    expect(await (await Keyring.open(store, master)).get('memory-a')).toBeNull();
    expect(await store.collection('data_keys').get('memory-a')).toBeNull();
    // Other aggregates keep their keys.
    expect(await keyring.get('memory-b')).not.toBeNull();
  });

  it('shredding several keys at once, or one that does not exist, succeeds', async () => {
    const keyring = await Keyring.open(openStore(), master);
    await keyring.create('a');
    await keyring.create('b');
    await keyring.shred(['a', 'b', 'never-existed']);
    expect(await keyring.get('a')).toBeNull();
    expect(await keyring.get('b')).toBeNull();
  });

  it('refuses to open with another master key, saying so', async () => {
    const first = openStore();
    await (await Keyring.open(first, master)).create('memory-a');
    await first.close();
    await expect(Keyring.open(openStore(), randomBytes(32))).rejects.toThrow(/master key/);
  });

  it('refuses another master key even when no data key was ever created', async () => {
    const first = openStore();
    await Keyring.open(first, master);
    await first.close();
    await expect(Keyring.open(openStore(), randomBytes(32))).rejects.toThrow(/master key/);
    // The original key still opens it.
    await expect(Keyring.open(openStore(), master)).resolves.toBeInstanceOf(Keyring);
  });

  it('keeps keyrings in different collections apart', async () => {
    const store = openStore();
    const one = await Keyring.open(store, master, 'keys_one');
    const two = await Keyring.open(store, master, 'keys_two');
    await one.create('x');
    expect(await two.get('x')).toBeNull();
  });

  describe('verifier', () => {
    it('is deterministic for one purpose and value, across keyring instances', async () => {
      const store = openStore();
      const a = await Keyring.open(store, master);
      const b = await Keyring.open(store, master);
      expect(a.verifier('api-key', 'secret-1')).toBe(a.verifier('api-key', 'secret-1'));
      expect(b.verifier('api-key', 'secret-1')).toBe(a.verifier('api-key', 'secret-1'));
      expect(a.verifier('api-key', 'secret-1')).toMatch(/^[0-9a-f]{64}$/);
    });

    it('differs across purposes, values and master keys, and does not contain the value', async () => {
      const keyring = await Keyring.open(openStore(), master);
      const memory = openSqliteDocumentStore({ path: ':memory:' });
      opened.push(memory);
      const other = await Keyring.open(memory, randomBytes(32));
      const v = keyring.verifier('api-key', 'secret-1');
      expect(keyring.verifier('other-purpose', 'secret-1')).not.toBe(v);
      expect(keyring.verifier('api-key', 'secret-2')).not.toBe(v);
      expect(other.verifier('api-key', 'secret-1')).not.toBe(v);
      expect(v).not.toContain(Buffer.from('secret-1').toString('hex'));
    });
  });
});
