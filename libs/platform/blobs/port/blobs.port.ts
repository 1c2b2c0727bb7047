/**
 * Whole files kept as they were given (the originals of uploads), by id: the store for bytes
 * too large for documents and events. Callers seal what they put (sealBytes, under the owning
 * aggregate's data key), so shredding the key erases a blob wherever a copy of it lies; the
 * store deletes its own copy on `delete`.
 *
 * Adapters: files under a directory (embedded, `libs/platform/blobs/files`) and MongoDB GridFS
 * (`libs/platform/blobs/mongo`); both pass `describeBlobStoreContract`.
 */
export interface BlobMeta {
  /** The MIME type to serve the blob with. */
  readonly contentType: string;
  /** The file name to offer on download. */
  readonly name: string;
  readonly workspaceId: string;
  /** When the blob was made (the caller's clock): what retention counts from. */
  readonly createdAt: Date;
}

export interface StoredBlob {
  readonly bytes: Buffer;
  readonly meta: BlobMeta;
}

export interface BlobStore {
  /**
   * Stores `bytes` under `id` once it is complete (a reader never sees part of a blob). A put of
   * an id that is already stored changes nothing and succeeds, so a retried put is harmless;
   * an id names one blob for good (puts of one id are not meant to run at the same time).
   */
  put(id: string, bytes: Buffer, meta: BlobMeta): Promise<void>;
  /** The blob, or null when there is none under `id` (never stored, or deleted). */
  get(id: string): Promise<StoredBlob | null>;
  /** Whether a blob is stored under `id`, without reading it (a caller checking that every part of a file is in). */
  has(id: string): Promise<boolean>;
  /** Removes the blob's bytes and meta from the store; deleting what is absent succeeds. */
  delete(id: string): Promise<void>;
  /**
   * Ids of up to `limit` blobs made before `before`, oldest first: what a retention sweep
   * deletes, a batch at a time.
   */
  idsCreatedBefore(before: Date, limit: number): Promise<string[]>;
  close(): Promise<void>;
}

/** Ids are what Lore's ids are (`cnt_…`): the embedded adapter names files after them. */
const BLOB_ID = /^[A-Za-z0-9_-]{1,128}$/;

export function assertBlobId(id: string): void {
  if (!BLOB_ID.test(id)) throw new Error(`invalid blob id ${JSON.stringify(id)}: 1–128 characters of A–Z, a–z, 0–9, _ and -`);
}
