import { existsSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { KEYRING_COLLECTION, sealedKeyId } from '@lore/platform/crypto';

/**
 * The platform's sealed format (libs/platform/crypto): `<data key id>:<AES-GCM text>`, the
 * text being `v<n>.<iv>.<ciphertext>.<tag>` in base64url. Matched strictly so that ordinary
 * strings with a colon (`user:alice`) are never taken for sealed ones.
 */
const SEALED = /^[A-Za-z0-9_-]+:v\d+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+$/;

/**
 * Whether data keys still exist, read from the contexts' keyring files (DATA_DIR/<context>/
 * keyring.db, collection data_keys) opened read-only. Only key ids are looked at: the
 * audit never needs, and never has, the master key. Key ids are random, so a key present in
 * any context's keyring is that context's key. Keyrings kept in MongoDB are not read: their
 * keys are shown as sealed, without saying whether they were erased.
 */
export class KeyPresence {
  private readonly lookups: Database.Statement<[string], unknown>[] = [];
  private readonly databases: Database.Database[] = [];
  private readonly cache = new Map<string, boolean>();

  constructor(dataDir: string, contexts: readonly string[]) {
    const table = `docs_${KEYRING_COLLECTION}`;
    for (const context of contexts) {
      const file = join(dataDir, context, 'keyring.db');
      if (!existsSync(file)) continue;
      const db = new Database(file, { readonly: true, fileMustExist: true });
      this.databases.push(db);
      const exists = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(table);
      if (exists !== undefined) this.lookups.push(db.prepare<[string], unknown>(`SELECT 1 FROM ${table} WHERE id = ?`));
    }
  }

  /** undefined: no keyring could be read, so whether the key was erased is unknown. */
  exists(keyId: string): boolean | undefined {
    if (this.lookups.length === 0) return undefined;
    let present = this.cache.get(keyId);
    if (present === undefined) {
      present = this.lookups.some((lookup) => lookup.get(keyId) !== undefined);
      this.cache.set(keyId, present);
    }
    return present;
  }

  close(): void {
    for (const db of this.databases) db.close();
  }
}

/** A copy of `value` with every sealed string replaced by `[sealed <keyId>]`, or `[erased]` once its key is gone. Never decrypts. */
export function maskSealed(value: unknown, keys: KeyPresence): unknown {
  if (typeof value === 'string') {
    if (!SEALED.test(value)) return value;
    const keyId = sealedKeyId(value);
    return keys.exists(keyId) === false ? '[erased]' : `[sealed ${keyId}]`;
  }
  if (Array.isArray(value)) return value.map((item) => maskSealed(item, keys));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, maskSealed(v, keys)]));
  }
  return value;
}
