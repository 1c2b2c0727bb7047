/**
 * Where the current and the new master key of a rotation come from, and how the standalone
 * key file is replaced. The new key is written to DATA_DIR/master.key.next before any keyring
 * changes and renamed over master.key only after every keyring is re-wrapped: until then the
 * old key stays where Lore and a resumed run look for it, and a resumed run finds the new one.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { MASTER_KEY_BYTES, parseMasterKey } from '@lore/platform/crypto';

export interface RotationKeys {
  readonly old: Buffer;
  readonly next: Buffer;
  /** The standalone key files, when the current key came from DATA_DIR/master.key (not LORE_MASTER_KEY). */
  readonly files: { readonly current: string; readonly next: string } | null;
  /** How the new key was obtained, for the messages. */
  readonly nextSource: 'LORE_NEW_MASTER_KEY' | 'generated' | 'master.key.next';
}

/** Reads both keys; throws with the operator's next step when one is missing or unusable. */
export function resolveRotationKeys(options: { masterKey: string | undefined; newMasterKey: string | undefined; dataDir: string; generate: boolean }): RotationKeys {
  const currentFile = join(options.dataDir, 'master.key');
  const nextFile = `${currentFile}.next`;
  const fromEnv = options.masterKey !== undefined && options.masterKey !== '';
  if (!fromEnv && !existsSync(currentFile)) {
    throw new Error(`no current master key: LORE_MASTER_KEY is not set and ${currentFile} does not exist (this command never generates the current key)`);
  }
  const old = fromEnv ? parseMasterKey(options.masterKey ?? '') : parseMasterKey(readFileSync(currentFile, 'utf8').trim(), currentFile);
  const given = options.newMasterKey !== undefined && options.newMasterKey !== '' ? parseMasterKey(options.newMasterKey, 'LORE_NEW_MASTER_KEY') : null;
  if (given !== null && options.generate) throw new Error('give the new master key either in LORE_NEW_MASTER_KEY or with --generate, not both');

  let next: Buffer;
  let nextSource: RotationKeys['nextSource'];
  if (!fromEnv && existsSync(nextFile)) {
    // An earlier run got as far as writing the new key: resume with it, never with another.
    next = parseMasterKey(readFileSync(nextFile, 'utf8').trim(), nextFile);
    nextSource = 'master.key.next';
    if (given !== null && !given.equals(next)) {
      throw new Error(
        `${nextFile} holds the new key of an unfinished rotation and LORE_NEW_MASTER_KEY differs from it: unset LORE_NEW_MASTER_KEY to ` +
          'complete that rotation with it',
      );
    }
  } else if (given !== null) {
    next = given;
    nextSource = 'LORE_NEW_MASTER_KEY';
  } else if (options.generate) {
    next = randomBytes(MASTER_KEY_BYTES);
    nextSource = 'generated';
  } else {
    throw new Error('no new master key: set LORE_NEW_MASTER_KEY (32 bytes, base64 or 64 hex digits) or pass --generate');
  }
  if (next.equals(old)) {
    throw new Error(
      `the new master key is the current one (${fromEnv ? 'LORE_MASTER_KEY' : currentFile}): nothing to rotate. ` +
        'If a rotation to it completed, Lore already starts with it.',
    );
  }
  return { old, next, files: fromEnv ? null : { current: currentFile, next: nextFile }, nextSource };
}

/** Writes a key file the way master.key is made: owner-only, complete or absent (temp file, fsync, rename). */
export function writeKeyFile(file: string, key: Buffer): void {
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, key.toString('base64') + '\n', { mode: 0o600 });
  try {
    syncFile(temporary);
    renameSync(temporary, file);
  } catch (error) {
    unlinkSync(temporary);
    throw error;
  }
  syncFile(dirname(file));
}

/** The last step: master.key.next replaces master.key in one rename; the old key file is gone with it. */
export function promoteNextKeyFile(files: { readonly current: string; readonly next: string }): void {
  renameSync(files.next, files.current);
  syncFile(dirname(files.current));
}

/** Durable before the next step relies on it: a rename is only as good as the data and directory entry behind it. */
function syncFile(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
