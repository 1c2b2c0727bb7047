import { createCipheriv, createDecipheriv } from 'node:crypto';
import { randomPoolBytes } from '@lore/platform/kernel';

const VERSION = 'v1';
export const IV_BYTES = 12;
export const TAG_BYTES = 16;

/** One AES-256-GCM encryption: a fresh IV, the ciphertext and its full-length tag. */
export interface GcmParts {
  readonly iv: Buffer;
  readonly body: Buffer;
  readonly tag: Buffer;
}

/** AES-256-GCM under a fresh random IV, `associatedData` authenticated alongside. */
export function gcmEncrypt(key: Buffer, plaintext: Buffer | string, associatedData: string): GcmParts {
  const iv = randomPoolBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(associatedData, 'utf8'));
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return { iv, body, tag: cipher.getAuthTag() };
}

/** Throws when the key, the associated data or any part is wrong: never returns garbage. */
export function gcmDecrypt(key: Buffer, { iv, body, tag }: GcmParts, associatedData: string): Buffer {
  // A full 16-byte tag only: GCM would otherwise verify a truncated tag, making forgeries feasible.
  if (tag.length !== TAG_BYTES) throw new Error('sealed value has a malformed authentication tag');
  const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  decipher.setAAD(Buffer.from(associatedData, 'utf8'));
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(body), decipher.final()]);
}

/**
 * AES-256-GCM with the aggregate id as associated data, so a ciphertext cannot be moved
 * to another aggregate unnoticed. Format: `v1.<iv>.<ciphertext>.<tag>` (base64url).
 */
export function seal(key: Buffer, plaintext: Buffer | string, associatedData: string): string {
  const { iv, body, tag } = gcmEncrypt(key, plaintext, associatedData);
  return [VERSION, iv.toString('base64url'), body.toString('base64url'), tag.toString('base64url')].join('.');
}

/** Throws when the key is wrong or the text was altered: never returns garbage. */
export function unseal(key: Buffer, sealed: string, associatedData: string): Buffer {
  const [version, iv, body, tag] = sealed.split('.');
  if (version !== VERSION || iv === undefined || body === undefined || tag === undefined) {
    throw new Error('unsupported sealed value');
  }
  const parts = { iv: Buffer.from(iv, 'base64url'), body: Buffer.from(body, 'base64url'), tag: Buffer.from(tag, 'base64url') };
  return gcmDecrypt(key, parts, associatedData);
}
