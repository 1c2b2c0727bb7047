import { gcmDecrypt, gcmEncrypt, IV_BYTES, TAG_BYTES } from './aead';
import type { DataKey } from './sealed-fields';

/** The first byte of every sealed byte string: the format, so that a later one can be told apart. */
const FORMAT = 0x01;
/** Key ids are `dk_…` (Keyring); one length byte bounds them. */
const MAX_KEY_ID_BYTES = 255;

/**
 * Bytes (an uploaded file) sealed under a data key: the binary counterpart of SealedFields'
 * text values, for payloads too large to carry base64 in JSON. AES-256-GCM with `associatedData`
 * (the id the bytes belong to, say a content id) authenticated alongside, so sealed bytes
 * cannot be moved to another id unnoticed. The key id is stored in the clear in front, so whoever
 * holds sealed bytes knows which key opens them, and which key to shred to erase them.
 *
 * Format: `01 | key id length (1 byte) | key id (UTF-8) | IV (12) | ciphertext | tag (16)`.
 */
export function sealBytes(dataKey: DataKey, bytes: Buffer, associatedData: string): Buffer {
  const keyId = Buffer.from(dataKey.keyId, 'utf8');
  if (keyId.length === 0 || keyId.length > MAX_KEY_ID_BYTES) throw new Error(`a data key id must be 1–${MAX_KEY_ID_BYTES} bytes`);
  const { iv, body, tag } = gcmEncrypt(dataKey.key, bytes, associatedData);
  return Buffer.concat([Buffer.from([FORMAT, keyId.length]), keyId, iv, body, tag]);
}

/** The id of the data key `sealed` was made with (to look the key up, or to shred it). */
export function sealedBytesKeyId(sealed: Buffer): string {
  return parse(sealed).keyId;
}

/** The bytes sealed by `sealBytes`; throws when the key, `associatedData` or any byte is wrong. */
export function openBytes(key: Buffer, sealed: Buffer, associatedData: string): Buffer {
  const { iv, body, tag } = parse(sealed);
  return gcmDecrypt(key, { iv, body, tag }, associatedData);
}

function parse(sealed: Buffer): { keyId: string; iv: Buffer; body: Buffer; tag: Buffer } {
  const keyIdLength = sealed[1] ?? 0;
  const ivAt = 2 + keyIdLength;
  const bodyAt = ivAt + IV_BYTES;
  if (sealed[0] !== FORMAT || keyIdLength === 0 || sealed.length < bodyAt + TAG_BYTES) throw new Error('unsupported sealed bytes');
  return {
    keyId: sealed.subarray(2, ivAt).toString('utf8'),
    iv: sealed.subarray(ivAt, bodyAt),
    body: sealed.subarray(bodyAt, sealed.length - TAG_BYTES),
    tag: sealed.subarray(sealed.length - TAG_BYTES),
  };
}
