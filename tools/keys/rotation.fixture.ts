/**
 * Test kit of the rotation specs: a temporary DATA_DIR whose context keyrings hold real data
 * keys and values sealed with them (as the services seal them), made and read back through
 * the same store opening Lore uses, and the command run in-process.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Keyring, SealedFields } from '@lore/platform/crypto';
import { openSqliteDocumentStore } from '@lore/platform/documents/sqlite';
import { openContextStores } from '@lore/platform/host';
import { loadConfig } from '@lore/platform/runtime';
import { rotateMasterKey, type RotateOptions } from './rotate-master-key';

/** Contexts given keyrings; the registry's other contexts have none, and the command must pass them by. */
export const SEEDED_CONTEXTS = ['conversations', 'keys', 'memory'] as const;

export interface SealedValue {
  readonly context: string;
  readonly aggregateId: string;
  readonly text: string;
  readonly sealed: string;
}

export interface Seeded {
  readonly values: SealedValue[];
  /** A verifier made before the rotation, as an API key's secret verifier is stored. */
  readonly verifier: string;
  /** A data key shredded before the rotation: it must stay gone. */
  readonly shredded: { readonly context: string; readonly keyId: string };
}

export interface RunResult {
  readonly code: number;
  readonly out: string;
  readonly err: string;
}

export function tempDataDir(): string {
  return mkdtempSync(join(tmpdir(), 'lore-rotate-'));
}

/** The environment Lore and the command read, with every production engine off and no terminal. */
export function loreEnv(dataDir: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const blank = { MONGODB_URL: '', EVENTSTORE_URL: '', QDRANT_URL: '', LORE_MASTER_KEY: '', LORE_NEW_MASTER_KEY: '' };
  return { ...process.env, ...blank, DATA_DIR: dataDir, LOG_LEVEL: 'silent', CI: 'true', ...extra };
}

export function removeDataDir(dataDir: string): void {
  rmSync(dataDir, { recursive: true, force: true });
}

export function keyFile(dataDir: string, name = 'master.key'): Buffer {
  return Buffer.from(readFileSync(join(dataDir, name), 'utf8').trim(), 'base64');
}

/** `perContext` values sealed per context, each with its own data key (the pool writes keys ahead, so more keys than values exist). */
export async function seed(env: NodeJS.ProcessEnv, perContext: number): Promise<Seeded> {
  const values: SealedValue[] = [];
  let verifier = '';
  let shredded = { context: '', keyId: '' };
  for (const context of SEEDED_CONTEXTS) {
    const stores = await openContextStores(loadConfig(env), context);
    try {
      const fields = new SealedFields<{ text: string }>(stores.keyring, context);
      for (let i = 0; i < perContext; i++) {
        const aggregateId = `${context}-${i}`;
        const text = `${context} secret ${i}`;
        values.push({ context, aggregateId, text, sealed: fields.seal(aggregateId, { text }, await fields.newKey()) });
      }
      if (context === 'keys') verifier = stores.keyring.verifier('api-key-secret', 'the secret of an API key');
      const gone = await stores.keyring.create();
      await stores.keyring.shred([gone.keyId]);
      shredded = { context, keyId: gone.keyId };
    } finally {
      await stores.close();
    }
  }
  return { values, verifier, shredded };
}

/**
 * Opens every seeded context as Lore does (with `env`'s key) and reads back every sealed value,
 * the verifier and the shredded key; resolves to what it found, rejects as Lore's start would.
 */
export async function readBack(env: NodeJS.ProcessEnv, seeded: Seeded): Promise<{ opened: number; verifier: string; shredded: Buffer | null }> {
  let opened = 0;
  let verifier = '';
  let shredded: Buffer | null = null;
  for (const context of SEEDED_CONTEXTS) {
    const stores = await openContextStores(loadConfig(env), context);
    try {
      const fields = new SealedFields<{ text: string }>(stores.keyring, context);
      for (const value of seeded.values.filter((v) => v.context === context)) {
        if ((await fields.open(value.aggregateId, value.sealed)).text !== value.text) throw new Error(`${value.aggregateId} opened to another text`);
        opened++;
      }
      if (context === 'keys') verifier = stores.keyring.verifier('api-key-secret', 'the secret of an API key');
      if (context === seeded.shredded.context) shredded = await stores.keyring.get(seeded.shredded.keyId);
    } finally {
      await stores.close();
    }
  }
  return { opened, verifier, shredded };
}

/**
 * Lore's start-up check of every seeded keyring with `key`, rejecting as Lore's start would. Not
 * through openContextStores, which leaves its stores open when the keyring refuses (a process
 * that fails to start exits), and an open keyring.db reads as a running Lore.
 */
export async function startWith(dataDir: string, key: Buffer): Promise<void> {
  for (const context of SEEDED_CONTEXTS) {
    const store = openSqliteDocumentStore({ path: join(dataDir, context, 'keyring.db'), durability: 'full' });
    try {
      await Keyring.open(store, key);
    } finally {
      await store.close();
    }
  }
}

export async function run(args: readonly string[], env: NodeJS.ProcessEnv, options: RotateOptions = {}): Promise<RunResult> {
  let out = '';
  let err = '';
  const code = await rotateMasterKey(args, { env, stdout: { write: (t: string) => (out += t) > '' }, stderr: { write: (t: string) => (err += t) > '' } }, options);
  return { code, out, err };
}
