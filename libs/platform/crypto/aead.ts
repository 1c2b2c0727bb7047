import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * AES-256-GCM with the aggregate id as associated data, so a ciphertext cannot be moved
 * to another aggregate unnoticed. Format: `v1.<iv>.<ciphertext>.<tag>` (base64url).
 */
export function seal(key: Buffer, plaintext: Buffer | string, associatedData: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(associatedData, 'utf8'));
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return [VERSION, iv.toString('base64url'), body.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
}

/** Throws when the key is wrong or the text was altered: never returns garbage. */
export function unseal(key: Buffer, sealed: string, associatedData: string): Buffer {
  const [version, iv, body, tag] = sealed.split('.');
  if (version !== VERSION || iv === undefined || body === undefined || tag === undefined) {
    throw new Error('unsupported sealed value');
  }
  const authTag = Buffer.from(tag, 'base64url');
  // A full 16-byte tag only: GCM would otherwise verify a truncated tag, making forgeries feasible.
  if (authTag.length !== TAG_BYTES) throw new Error('sealed value has a malformed authentication tag');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'), { authTagLength: TAG_BYTES });
  decipher.setAAD(Buffer.from(associatedData, 'utf8'));
  decipher.setAuthTag(authTag);
  return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]);
}
