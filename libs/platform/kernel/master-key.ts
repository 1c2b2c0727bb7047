import { randomBytes } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const MASTER_KEY_BYTES = 32;

/**
 * The master key wraps every per-aggregate data key. Production passes it in
 * `LORE_MASTER_KEY` (32 bytes, base64 or hex). Standalone generates one into
 * `DATA_DIR/master.key` on first start (mode 0600) and reuses it, so `npm start` needs no
 * set-up. `onGenerated` is told the file's path when this call created it, so the caller can
 * log it: the key is the only way to read the data, and it must be backed up.
 */
export function loadMasterKey(options: { value: string | undefined; dataDir: string; onGenerated?: (file: string) => void }): Buffer {
  if (options.value) return parseMasterKey(options.value);
  const file = join(options.dataDir, 'master.key');
  if (existsSync(file)) return parseMasterKey(readFileSync(file, 'utf8').trim(), file);
  mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  const key = randomBytes(MASTER_KEY_BYTES);
  // Written aside and linked into place, so a concurrently starting service never reads a half-written key.
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, key.toString('base64') + '\n', { mode: 0o600 });
  try {
    linkSync(temporary, file);
  } catch (error) {
    // Another service of the same DATA_DIR created it first: use that one.
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return parseMasterKey(readFileSync(file, 'utf8').trim(), file);
    throw error;
  } finally {
    unlinkSync(temporary);
  }
  options.onGenerated?.(file);
  return key;
}

/** The line to log when `loadMasterKey` generated a key. */
export function masterKeyGeneratedMessage(file: string): string {
  return `generated a new master key at ${file}; back it up: without it the data under DATA_DIR cannot be read`;
}

export function parseMasterKey(text: string, source = 'LORE_MASTER_KEY'): Buffer {
  const key = /^[0-9a-fA-F]{64}$/.test(text) ? Buffer.from(text, 'hex') : Buffer.from(text, 'base64');
  if (key.length !== MASTER_KEY_BYTES) {
    throw new Error(`${source} must be ${MASTER_KEY_BYTES} bytes, given as 64 hex digits or base64 (got ${key.length} bytes)`);
  }
  return key;
}
