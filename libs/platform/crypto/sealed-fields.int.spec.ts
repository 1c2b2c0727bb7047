import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DocumentStore } from '@lore/platform/documents/port';
import { openSqliteDocumentStore } from '@lore/platform/documents/sqlite';
import { Keyring } from './keyring';
import { SealedFields } from './sealed-fields';

describe('SealedFields (keyring on a SQLite document store)', () => {
  let dir: string;
  const opened: DocumentStore[] = [];
  const master = randomBytes(32);
  const openKeyring = () => {
    const store = openSqliteDocumentStore({ path: join(dir, 'keys.db') });
    opened.push(store);
    return Keyring.open(store, master);
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'lore-sealed-fields-'));
  });

  afterEach(async () => {
    await Promise.all(opened.splice(0).map((store) => store.close()));
    rmSync(dir, { recursive: true, force: true });
  });

  it('opens what it sealed with a key the keyring holds, and with one it has to read and unwrap', async () => {
    const keyring = await openKeyring();
    const fields = new SealedFields<{ text: string }>(keyring, 'Note');
    const key = await fields.newKey();
    const sealed = fields.seal('note-1', { text: 'hello' }, key);
    expect(keyring.cached(key.keyId)).toEqual(key.key);

    await expect(fields.open('note-1', sealed)).resolves.toEqual({ text: 'hello' });
    const later = await openKeyring();
    expect(later.cached(key.keyId)).toBeUndefined();
    await expect(new SealedFields<{ text: string }>(later, 'Note').open('note-1', sealed)).resolves.toEqual({ text: 'hello' });
    expect(later.cached(key.keyId)).toEqual(key.key);
  });

  it('refuses, as a rejection and never a throw: a shredded key (not found), another aggregate, a value without a key id', async () => {
    const keyring = await openKeyring();
    const fields = new SealedFields<string>(keyring, 'Note');
    const key = await fields.newKey();
    const sealed = fields.seal('note-1', 'hello', key);

    const elsewhere = fields.open('note-2', sealed);
    await expect(elsewhere).rejects.toThrow();
    let malformed: Promise<string> | undefined;
    expect(() => (malformed = fields.open('note-1', 'no key id here'))).not.toThrow();
    await expect(malformed).rejects.toThrow('sealed value without a key id');

    await keyring.shred([key.keyId]);
    expect(keyring.cached(key.keyId)).toBeUndefined();
    await expect(fields.open('note-1', sealed)).rejects.toMatchObject({ code: 'not_found', message: expect.stringContaining('Note') });
  });
});
