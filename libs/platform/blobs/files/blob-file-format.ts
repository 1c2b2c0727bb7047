import { open } from 'node:fs/promises';
import type { BlobMeta, StoredBlob } from '@lore/platform/blobs/port';

/**
 * A blob file: `LOREBLB1` | meta length (uint32 BE) | meta (JSON) | the blob's bytes. The meta
 * records the byte count too, so a file cut short (a disk that lied about fsync) is refused
 * rather than served as a shorter file.
 */
const MAGIC = Buffer.from('LOREBLB1', 'latin1');
const PREFIX_BYTES = MAGIC.length + 4;
/** Meta is a few short strings; a bound keeps a damaged length field from allocating gigabytes. */
const MAX_META_BYTES = 64 * 1024;

interface StoredMeta {
  readonly contentType: string;
  readonly name: string;
  readonly workspaceId: string;
  readonly createdAt: string;
  readonly size: number;
}

export function encodeBlobHeader(meta: BlobMeta, size: number): Buffer {
  const stored: StoredMeta = { contentType: meta.contentType, name: meta.name, workspaceId: meta.workspaceId, createdAt: meta.createdAt.toISOString(), size };
  const json = Buffer.from(JSON.stringify(stored), 'utf8');
  if (json.length > MAX_META_BYTES) throw new Error(`blob meta over ${MAX_META_BYTES} bytes (a name or content type far too long)`);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(json.length);
  return Buffer.concat([MAGIC, length, json]);
}

export function decodeBlobFile(data: Buffer, path: string): StoredBlob {
  const metaLength = metaLengthOf(data, path);
  const stored = parseMeta(data.subarray(PREFIX_BYTES, PREFIX_BYTES + metaLength), path);
  const bytes = data.subarray(PREFIX_BYTES + metaLength);
  if (bytes.length !== stored.size) throw new Error(`${path} holds ${bytes.length} bytes of a ${stored.size}-byte blob`);
  return { bytes, meta: metaOf(stored) };
}

/** The meta of the blob file at `path`, read without its bytes; null once the file is gone. */
export async function readBlobHeader(path: string): Promise<BlobMeta | null> {
  let file;
  try {
    file = await open(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null; // deleted meanwhile
    throw error;
  }
  try {
    const prefix = Buffer.alloc(PREFIX_BYTES);
    await file.read(prefix, 0, PREFIX_BYTES, 0);
    const metaLength = metaLengthOf(prefix, path);
    const json = Buffer.alloc(metaLength);
    const { bytesRead } = await file.read(json, 0, metaLength, PREFIX_BYTES);
    return metaOf(parseMeta(json.subarray(0, bytesRead), path));
  } finally {
    await file.close();
  }
}

function metaLengthOf(data: Buffer, path: string): number {
  if (data.length < PREFIX_BYTES || !data.subarray(0, MAGIC.length).equals(MAGIC)) throw new Error(`${path} is not a blob file`);
  const length = data.readUInt32BE(MAGIC.length);
  if (length > MAX_META_BYTES) throw new Error(`${path} has a damaged header`);
  return length;
}

function parseMeta(json: Buffer, path: string): StoredMeta {
  try {
    return JSON.parse(json.toString('utf8')) as StoredMeta;
  } catch {
    throw new Error(`${path} has a damaged header`);
  }
}

function metaOf(stored: StoredMeta): BlobMeta {
  return { contentType: stored.contentType, name: stored.name, workspaceId: stored.workspaceId, createdAt: new Date(stored.createdAt) };
}
