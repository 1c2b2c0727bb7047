import { randomBytes } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseMasterKey } from '@lore/platform/kernel';

/** Fewer bytes than a key's worth would make the derived key guessable. */
export const EVENT_ID_SECRET_MIN_BYTES = 32;
/** The file a gateway generates the secret into when none is configured. */
export const EVENT_ID_SECRET_FILE = 'event-id.key';

/**
 * The secret SSE event ids are sealed with ({@link EventIds} derives its key from it), by one
 * rule for every gateway, standalone or distributed:
 * 1. `LORE_EVENT_ID_SECRET` when set (32 bytes or more, base64 or hex);
 * 2. else `LORE_MASTER_KEY` when set (every process of a deployment that sets it shares it);
 * 3. else `DATA_DIR/event-id.key`, generated once (mode 0600) and reused.
 * The gateway never generates or reads `master.key`: the master key is the services' (it
 * wraps data keys), and a gateway that made its own would both log a false "back it up"
 * warning and seal ids no other gateway opens. Only rule 3 is local to one process's
 * DATA_DIR, so several gateways need rule 1 or 2 to accept each other's ids. `onGenerated` is
 * told the file's path when this call created it (log {@link eventIdSecretGeneratedMessage}).
 */
export function loadEventIdSecret(options: { secret: string | undefined; masterKey: string | undefined; dataDir: string; onGenerated?: (file: string) => void }): Buffer {
  if (options.secret) return parseEventIdSecret(options.secret, 'LORE_EVENT_ID_SECRET');
  // Read as the services read it, so a malformed key fails here with the same message.
  if (options.masterKey) return parseMasterKey(options.masterKey);
  const file = join(options.dataDir, EVENT_ID_SECRET_FILE);
  if (existsSync(file)) return parseEventIdSecret(readFileSync(file, 'utf8'), file);
  mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  const secret = randomBytes(EVENT_ID_SECRET_MIN_BYTES);
  // Written aside and linked into place: a gateway starting at the same time never reads half a secret.
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, secret.toString('base64') + '\n', { mode: 0o600 });
  try {
    linkSync(temporary, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return parseEventIdSecret(readFileSync(file, 'utf8'), file);
    throw error;
  } finally {
    unlinkSync(temporary);
  }
  options.onGenerated?.(file);
  return secret;
}

/** The line to log when {@link loadEventIdSecret} generated the secret: honest about what it is for and what it does not do. */
export function eventIdSecretGeneratedMessage(file: string): string {
  return `generated the secret SSE event ids are sealed with at ${file} (neither LORE_EVENT_ID_SECRET nor LORE_MASTER_KEY is set); ids this gateway sends are accepted only by gateways with the same secret: when running several gateways, set LORE_EVENT_ID_SECRET (the same on each). Losing it only makes clients' saved event ids invalid (422), no data`;
}

/** 64 or more hex digits, or base64 (standard or URL-safe) of 32 bytes or more. */
export function parseEventIdSecret(text: string, source: string): Buffer {
  const value = text.trim();
  let bytes: Buffer | null = null;
  if (/^(?:[0-9a-fA-F]{2})+$/.test(value)) bytes = Buffer.from(value, 'hex');
  // Buffer.from(…, 'base64') skips characters it does not know: check the alphabet first.
  else if (/^[A-Za-z0-9+/_-]+={0,2}$/.test(value)) bytes = Buffer.from(value, 'base64');
  if (bytes === null || bytes.length < EVENT_ID_SECRET_MIN_BYTES) {
    throw new Error(`${source} must be at least ${EVENT_ID_SECRET_MIN_BYTES} bytes, given as hex digits or base64 (got ${bytes === null ? 'neither' : `${bytes.length} bytes`})`);
  }
  return bytes;
}
