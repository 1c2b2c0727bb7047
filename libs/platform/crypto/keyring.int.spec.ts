import { createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DocumentStore } from '@lore/platform/documents/port';
import { openSqliteDocumentStore } from '@lore/platform/documents/sqlite';
import { seal, unseal } from './aead';
import { KEY_CHECK_ID, Keyring, SHRED_PAGE, sealKeyCheck, sealVerifierKeys, verifierKeys, wrapDataKey, type KeyringCheckDoc } from './keyring';

const keyDocs = (store: DocumentStore) => store.collection<KeyringCheckDoc>('data_keys');
const keyCheck = (store: DocumentStore) => keyDocs(store).get(KEY_CHECK_ID);
const fail = (why: string): never => {
  throw new Error(why);
};

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

  it('hands out a fresh 32-byte data key with its id, and returns it again by id', async () => {
    const keyring = await Keyring.open(openStore(), master);
    const a = await keyring.create();
    const b = await keyring.create();
    expect(a.key).toHaveLength(32);
    expect(a.keyId).not.toBe(b.keyId);
    expect(a.key.equals(b.key)).toBe(false);
    expect((await keyring.get(a.keyId))?.equals(a.key)).toBe(true);
    expect((await keyring.get(b.keyId))?.equals(b.key)).toBe(true);
  });

  it('returns null for an id that never named a key', async () => {
    const keyring = await Keyring.open(openStore(), master);
    expect(await keyring.get('dk_none')).toBeNull();
  });

  it('has written a key durably before handing it out: a keyring opened later on the same file reads it', async () => {
    const first = openStore();
    const { keyId, key } = await (await Keyring.open(first, master)).create();
    await first.close();
    const reopened = await Keyring.open(openStore(), master);
    expect((await reopened.get(keyId))?.equals(key)).toBe(true);
  });

  it('never hands out one key twice, also under concurrent demand beyond one pool batch', async () => {
    const store = openStore();
    const keyring = await Keyring.open(store, master);
    const handed = await Promise.all(Array.from({ length: 600 }, () => keyring.create()));
    expect(new Set(handed.map((h) => h.keyId)).size).toBe(600);
    expect(new Set(handed.map((h) => h.key.toString('hex'))).size).toBe(600);
    // Every one of them is stored, readable without the cache.
    const fresh = await Keyring.open(store, master);
    for (const { keyId, key } of handed) expect((await fresh.get(keyId))?.equals(key)).toBe(true);
  });

  it('hands out pooled keys without waiting, none before the first batch is durable', async () => {
    const store = openStore();
    const keyring = await Keyring.open(store, master);
    expect(keyring.takePooled()).toBeUndefined();
    const first = await keyring.create();
    const pooled = keyring.takePooled();
    expect(pooled).toBeDefined();
    expect(pooled?.keyId).not.toBe(first.keyId);
    // Durable and readable by id, like a key from create.
    expect((await (await Keyring.open(store, master)).get(pooled?.keyId ?? ''))?.equals(pooled?.key ?? Buffer.alloc(0))).toBe(true);
  });

  it('takes a key given back next, still durable and readable, with nothing written', async () => {
    const store = openStore();
    const keyring = await Keyring.open(store, master);
    const taken = await keyring.create();
    const keys = store.collection('data_keys');
    const stored = await keys.count();
    keyring.putBack(taken);
    expect(await keys.count()).toBe(stored);
    expect(keyring.takePooled()).toEqual(taken);
    expect((await (await Keyring.open(store, master)).get(taken.keyId))?.equals(taken.key)).toBe(true);
  });

  it('stores data keys wrapped, never in the clear', async () => {
    const store = openStore();
    const { keyId, key } = await (await Keyring.open(store, master)).create();
    const doc = await store.collection('data_keys').get(keyId);
    expect(doc).not.toBeNull();
    const stored = JSON.stringify(doc);
    for (const encoding of ['hex', 'base64', 'base64url'] as const) expect(stored).not.toContain(key.toString(encoding));
  });

  it('binds each wrapped key to its id: a wrapped key copied under another id does not open', async () => {
    const store = openStore();
    const keyring = await Keyring.open(store, master);
    const a = await keyring.create();
    const b = await keyring.create();
    const wrappedA = await store.collection<{ id: string; wrapped: string }>('data_keys').get(a.keyId);
    await store.collection('data_keys').upsert({ id: b.keyId, wrapped: wrappedA?.wrapped ?? '' });
    await expect((await Keyring.open(store, master)).get(b.keyId)).rejects.toThrow();
  });

  it('shreds: get returns null afterwards, in this keyring and in a fresh one', async () => {
    const store = openStore();
    const keyring = await Keyring.open(store, master);
    const shredded = await keyring.create();
    const kept = await keyring.create();
    const sealed = seal(shredded.key, 'private text', 'memory-a');
    expect(unseal((await keyring.get(shredded.keyId)) ?? Buffer.alloc(32), sealed, 'memory-a').toString()).toBe('private text');

    await keyring.shred([shredded.keyId]);

    expect(await keyring.get(shredded.keyId)).toBeNull();
    expect(await (await Keyring.open(store, master)).get(shredded.keyId)).toBeNull();
    expect(await store.collection('data_keys').get(shredded.keyId)).toBeNull();
    // Other keys are kept.
    expect((await keyring.get(kept.keyId))?.equals(kept.key)).toBe(true);
  });

  describe('a shred racing a read of the same key', () => {
    /** The store, with the replies to its reads and its writes each held until released (a store that awaits its I/O). */
    function heldStore(store: DocumentStore) {
      const held = { armed: false, reads: [] as Array<() => void>, writes: [] as Array<() => void> };
      const wait = (queue: Array<() => void>) => (held.armed ? new Promise<void>((resolve) => queue.push(resolve)) : Promise.resolve());
      const slow: DocumentStore = Object.assign(Object.create(store) as DocumentStore, {
        collection: (name: string) => {
          const inner = store.collection(name);
          return Object.assign(Object.create(inner) as typeof inner, { get: async (id: string) => {
            // Read now, delivered when released: what a slow store's reply says of the moment it read.
            const doc = await inner.get(id);
            await wait(held.reads);
            return doc;
          } });
        },
        write: async (...args: Parameters<DocumentStore['write']>) => (await wait(held.writes), store.write(...args)),
      });
      const release = async (queue: Array<() => void>) => {
        while (queue.length === 0) await new Promise((resolve) => setImmediate(resolve));
        queue.splice(0).forEach((go) => go());
      };
      /** Opens a keyring on the slow store; from then on its reads and writes are held. */
      const open = async () => {
        const keyring = await Keyring.open(slow, master);
        held.armed = true;
        return keyring;
      };
      return { open, releaseRead: () => release(held.reads), releaseWrite: () => release(held.writes) };
    }

    async function storedKey() {
      const store = openStore();
      const { keyId } = await (await Keyring.open(store, master)).create();
      return { store, keyId };
    }

    it('a read begun before the shred and ending after it hands out nothing and caches nothing', async () => {
      const { store, keyId } = await storedKey();
      const { open, releaseRead, releaseWrite } = heldStore(store);
      const keyring = await open();

      const reading = keyring.get(keyId);
      const shredding = keyring.shred([keyId]);
      await releaseWrite();
      await shredding;
      await releaseRead();

      expect(await reading).toBeNull();
      expect(keyring.cached(keyId)).toBeUndefined();
    });

    it('a read begun and ended while the deletion is being written hands out nothing', async () => {
      const { store, keyId } = await storedKey();
      const { open, releaseRead, releaseWrite } = heldStore(store);
      const keyring = await open();

      const shredding = keyring.shred([keyId]);
      const reading = keyring.get(keyId);
      await releaseRead();
      expect(await reading).toBeNull();
      await releaseWrite();
      await shredding;
      expect(keyring.cached(keyId)).toBeUndefined();
    });

    it('a read begun while the deletion is being written and ending after the shred hands out nothing', async () => {
      const { store, keyId } = await storedKey();
      const { open, releaseRead, releaseWrite } = heldStore(store);
      const keyring = await open();

      const shredding = keyring.shred([keyId]);
      const reading = keyring.get(keyId);
      await releaseWrite();
      await shredding;
      await releaseRead();

      expect(await reading).toBeNull();
      expect(keyring.cached(keyId)).toBeUndefined();
    });
  });

  it('shredding several keys at once, or one that does not exist, succeeds', async () => {
    const keyring = await Keyring.open(openStore(), master);
    const a = await keyring.create();
    const b = await keyring.create();
    await keyring.shred([a.keyId, b.keyId, 'dk_never_existed']);
    expect(await keyring.get(a.keyId)).toBeNull();
    expect(await keyring.get(b.keyId)).toBeNull();
  });

  it('shreds many keys a page per transaction, with other work let in between', async () => {
    const store = openStore();
    const keyring = await Keyring.open(store, master);
    const keys = await Promise.all(Array.from({ length: SHRED_PAGE * 2 + 1 }, () => keyring.create()));
    const write = store.write.bind(store);
    const deletesPerWrite: number[] = [];
    jest.spyOn(store, 'write').mockImplementation((writes, checkpoint) => {
      deletesPerWrite.push(writes.filter((w) => w.op === 'delete').length);
      return write(writes, checkpoint);
    });
    let between = 0;
    let done = false;
    const shredding = keyring.shred(keys.map((k) => k.keyId)).finally(() => (done = true));
    const tick = (): void => {
      if (done) return;
      between++;
      setImmediate(tick);
    };
    setImmediate(tick);
    await shredding;
    expect(deletesPerWrite).toEqual([SHRED_PAGE, SHRED_PAGE, 1]);
    expect(between).toBeGreaterThanOrEqual(2);
    for (const i of [0, SHRED_PAGE, SHRED_PAGE * 2]) expect(await store.collection('data_keys').get(keys[i]?.keyId ?? fail('no key'))).toBeNull();
  });

  it('refuses to open with another master key, saying so', async () => {
    const first = openStore();
    await (await Keyring.open(first, master)).create();
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
    const { keyId } = await one.create();
    expect(await one.get(keyId)).not.toBeNull();
    expect(await two.get(keyId)).toBeNull();
  });

  describe('verifier', () => {
    it('is deterministic for one purpose and value, across keyring instances', async () => {
      const store = openStore();
      const a = await Keyring.open(store, master);
      const b = await Keyring.open(store, master);
      expect(a.verifier('api-key-secret', 'secret-1')).toBe(a.verifier('api-key-secret', 'secret-1'));
      expect(b.verifier('api-key-secret', 'secret-1')).toBe(a.verifier('api-key-secret', 'secret-1'));
      expect(a.verifier('api-key-secret', 'secret-1')).toMatch(/^[0-9a-f]{64}$/);
    });

    it('differs across values and master keys, and does not contain the value', async () => {
      const keyring = await Keyring.open(openStore(), master);
      const memory = openSqliteDocumentStore({ path: ':memory:' });
      opened.push(memory);
      const other = await Keyring.open(memory, randomBytes(32));
      const v = keyring.verifier('api-key-secret', 'secret-1');
      expect(keyring.verifier('api-key-secret', 'secret-2')).not.toBe(v);
      expect(other.verifier('api-key-secret', 'secret-1')).not.toBe(v);
      expect(v).not.toContain(Buffer.from('secret-1').toString('hex'));
    });

    it('is the keyed hash stored verifiers were made with: HMAC under HMAC(master key, "lore/<purpose>")', async () => {
      const keyring = await Keyring.open(openStore(), master);
      const derived = createHmac('sha256', master).update('lore/api-key-secret').digest();
      expect(keyring.verifier('api-key-secret', 'secret-1')).toBe(createHmac('sha256', derived).update('secret-1').digest('hex'));
    });

    it('after a rotation, is still made with the original master key\'s verifier key, carried over in the check doc', async () => {
      const store = openStore();
      const before = (await Keyring.open(store, master)).verifier('api-key-secret', 'secret-1');
      const next = randomBytes(32);
      const check = (await keyCheck(store)) ?? fail('no check doc');
      await keyDocs(store).upsert({ id: KEY_CHECK_ID, wrapped: sealKeyCheck(next), master_version: 2, verifier_keys: sealVerifierKeys(next, verifierKeys(master, check)) });
      expect((await Keyring.open(store, next)).verifier('api-key-secret', 'secret-1')).toBe(before);
    });
  });

  describe('master key versions', () => {
    it('records version 1 in a new keyring\'s check doc and on every data key it writes', async () => {
      const store = openStore();
      const { keyId } = await (await Keyring.open(store, master)).create();
      expect((await keyCheck(store))?.master_version).toBe(1);
      expect((await keyDocs(store).get(keyId))?.master_version).toBe(1);
      expect(await keyDocs(store).count({ master_version: { $ne: 1 } })).toBe(0);
    });

    it('writes new data keys with the version its check doc records', async () => {
      const store = openStore();
      await keyDocs(store).upsert({ id: KEY_CHECK_ID, wrapped: sealKeyCheck(master), master_version: 3 });
      const keyring = await Keyring.open(store, master);
      const handed = await Promise.all(Array.from({ length: 300 }, () => keyring.create()));
      expect(await keyDocs(store).count({ master_version: 3 })).toBeGreaterThanOrEqual(301);
      expect(await keyDocs(store).count({ master_version: { $ne: 3 } })).toBe(0);
      expect((await keyring.get(handed[0]?.keyId ?? ''))?.equals(handed[0]?.key ?? Buffer.alloc(0))).toBe(true);
    });

    it('opens a keyring written before versions were recorded as version 1, and reads its keys', async () => {
      const store = openStore();
      const key = randomBytes(32);
      await keyDocs(store).upsert({ id: KEY_CHECK_ID, wrapped: sealKeyCheck(master) });
      await keyDocs(store).upsert({ id: 'dk_legacy', wrapped: wrapDataKey(master, 'dk_legacy', key) });
      const keyring = await Keyring.open(store, master);
      expect((await keyring.get('dk_legacy'))?.equals(key)).toBe(true);
      expect((await keyDocs(store).get((await keyring.create()).keyId))?.master_version).toBe(1);
    });

    it('refuses another master key, naming the version the stored keys are wrapped by', async () => {
      const store = openStore();
      await keyDocs(store).upsert({ id: KEY_CHECK_ID, wrapped: sealKeyCheck(master), master_version: 2 });
      await expect(Keyring.open(store, randomBytes(32))).rejects.toThrow(/master key does not match .* wrapped by master key version 2/);
    });

    it('refuses to start on an interrupted rotation, with the old key or the new one, telling the operator to re-run it', async () => {
      const store = openStore();
      await (await Keyring.open(store, master)).create();
      const next = randomBytes(32);
      const check = (await keyCheck(store)) ?? fail('no check doc');
      await keyDocs(store).upsert({ ...check, rotation: { from: 1, to: 2, wrapped: sealKeyCheck(next), verifier_keys: {} } });
      for (const key of [master, next]) {
        await expect(Keyring.open(store, key)).rejects.toThrow(/rotation \(version 1 to 2\) was interrupted.*Re-run `npm run keys:rotate-master`/);
      }
    });

    it('refuses to start while data keys remain under another version than the check doc\'s, telling the operator to re-run the rotation', async () => {
      const store = openStore();
      const next = randomBytes(32);
      await keyDocs(store).upsert({ id: KEY_CHECK_ID, wrapped: sealKeyCheck(next), master_version: 2 });
      await keyDocs(store).upsert({ id: 'dk_new', wrapped: wrapDataKey(next, 'dk_new', randomBytes(32)), master_version: 2 });
      await expect(Keyring.open(store, next)).resolves.toBeInstanceOf(Keyring);
      // Left behind at version 1: recorded, or from before versions were recorded.
      for (const stray of [{ master_version: 1 }, {}]) {
        await keyDocs(store).upsert({ id: 'dk_old', wrapped: wrapDataKey(master, 'dk_old', randomBytes(32)), ...stray });
        await expect(Keyring.open(store, next)).rejects.toThrow(/1 data keys are wrapped by another master key version .*\(2\).*Re-run `npm run keys:rotate-master`/);
      }
    });

    it('refuses a version 1 keyring holding data keys of a later version', async () => {
      const store = openStore();
      await (await Keyring.open(store, master)).create();
      await keyDocs(store).upsert({ id: 'dk_ahead', wrapped: 'v1.x.y.z', master_version: 2 });
      await expect(Keyring.open(store, master)).rejects.toThrow(/keys:rotate-master/);
    });
  });
});
