import { createHash } from 'node:crypto';

/** Lore's namespace for point ids (a random UUID, fixed forever: changing it orphans every stored point). */
const NAMESPACE = Buffer.from('6f1c2a4e9b3d4f0a8e7c5b1d2a3f4e6c', 'hex');

/**
 * Qdrant point ids are unsigned integers or UUIDs; Lore's are strings (chunk ids). A name-based
 * UUID (version 5: SHA-1 of namespace and id) maps each string to one UUID, the same in every
 * process, so upserts and deletes by id need no lookup. The string id is kept in the payload.
 */
export function pointUuid(id: string): string {
  const bytes = createHash('sha1').update(NAMESPACE).update(id, 'utf8').digest().subarray(0, 16);
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x50;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
