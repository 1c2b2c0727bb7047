/**
 * The keyring store of each context, opened the way libs/platform/host/context-stores.ts opens
 * it (DATA_DIR/<context>/keyring.db, or the `<prefix>_<context>_keys` MongoDB database), but
 * never created: a context without a keyring has nothing to rotate. Also the check that Lore
 * is stopped, where that can be told.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { DocumentStore } from '@lore/platform/documents/port';
import { openSqliteDocumentStore } from '@lore/platform/documents/sqlite';
import { openMongoDocumentStore } from '@lore/platform/documents/mongo';
import { KEY_CHECK_ID, KEYRING_COLLECTION } from '@lore/platform/crypto';
import type { LoreConfig } from '@lore/platform/runtime';

/** Long enough to ride out a checkpoint by a stopping service, short enough not to look hung. */
const LOCK_PROBE_TIMEOUT_MS = 500;

export interface KeyringStore {
  readonly context: string;
  readonly documents: DocumentStore;
}

/** Where a context's keyring lives, for messages. */
export function keyringLocation(config: LoreConfig, context: string): string {
  return config.mongoUrl ? `MongoDB database ${config.mongoDatabasePrefix}_${context}_keys` : join(config.dataDir, context, 'keyring.db');
}

/**
 * Throws when a Lore process holds a context's keyring.db open. Every connection to a WAL
 * database holds a shared lock on it for as long as it is open (idle or not), so an exclusive
 * lock can only be had when no service has the file open. The probe lets go at once: the
 * rotation marker written next keeps services from starting on a keyring while it is rotated.
 * MongoDB offers nothing alike: there, stopping the services is the operator's part.
 */
export function assertLoreStopped(config: LoreConfig, contexts: readonly string[]): void {
  if (config.mongoUrl) return;
  for (const context of contexts) {
    const path = join(config.dataDir, context, 'keyring.db');
    if (!existsSync(path)) continue;
    const probe = new Database(path, { fileMustExist: true, timeout: LOCK_PROBE_TIMEOUT_MS });
    try {
      probe.pragma('locking_mode = EXCLUSIVE');
      probe.exec('BEGIN EXCLUSIVE');
      probe.exec('ROLLBACK');
    } catch (error) {
      if ((error as { code?: string }).code !== 'SQLITE_BUSY') throw error;
      throw new Error(`Lore is running on ${config.dataDir}: ${path} is in use. Stop every Lore process that uses this DATA_DIR, then run this again.`);
    } finally {
      probe.close();
    }
  }
}

/** The keyrings that exist, opened; contexts without one are left out. */
export async function openKeyringStores(config: LoreConfig, contexts: readonly string[]): Promise<KeyringStore[]> {
  const opened: KeyringStore[] = [];
  try {
    for (const context of contexts) {
      const documents = await openKeyringStore(config, context);
      if (documents === null) continue;
      opened.push({ context, documents });
      // A MongoDB database springs into being on first use: only one with a check doc is a keyring.
      if ((await documents.collection(KEYRING_COLLECTION).get(KEY_CHECK_ID)) === null) {
        opened.pop();
        await documents.close();
      }
    }
    return opened;
  } catch (error) {
    await Promise.all(opened.map((store) => store.documents.close()));
    throw error;
  }
}

async function openKeyringStore(config: LoreConfig, context: string): Promise<DocumentStore | null> {
  if (config.mongoUrl) return openMongoDocumentStore({ url: config.mongoUrl, database: `${config.mongoDatabasePrefix}_${context}_keys` });
  const path = join(config.dataDir, context, 'keyring.db');
  return existsSync(path) ? openSqliteDocumentStore({ path, durability: 'full' }) : null;
}
