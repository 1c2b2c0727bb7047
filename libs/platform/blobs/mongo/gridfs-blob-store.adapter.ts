/**
 * The production blob store: MongoDB GridFS (the driver's GridFSBucket), blobs split into
 * 255 KiB chunk documents under one file document that GridFS writes last, so a file document
 * exists only for a complete blob.
 */
import { createHash } from 'node:crypto';
import { GridFSBucket, MongoClient, ObjectId } from 'mongodb';
import type { Collection, Db } from 'mongodb';
import { assertBlobId, type BlobMeta, type BlobStore, type StoredBlob } from '@lore/platform/blobs/port';

export interface GridFsBlobStoreOptions {
  readonly url: string;
  readonly database: string;
  /** The GridFS bucket: collections `<bucket>.files` and `<bucket>.chunks`. */
  readonly bucket: string;
}

/** What a blob's GridFS file document holds besides GridFS's own fields. */
interface BlobFileMetadata {
  readonly blobId: string;
  readonly contentType: string;
  readonly name: string;
  readonly workspaceId: string;
  readonly createdAt: Date;
}

interface BlobFileDoc {
  _id: ObjectId;
  length: number;
  filename: string;
  metadata: BlobFileMetadata;
}

/** Connects eagerly (a wrong URL fails at startup) and creates the retention index. */
export async function openGridFsBlobStore(options: GridFsBlobStoreOptions): Promise<BlobStore> {
  const client = new MongoClient(options.url);
  await client.connect();
  try {
    const store = new GridFsBlobStore(client, client.db(options.database), options.bucket);
    await store.prepare();
    return store;
  } catch (error) {
    await client.close();
    throw error;
  }
}

class GridFsBlobStore implements BlobStore {
  private readonly bucket: GridFSBucket;
  private readonly files: Collection<BlobFileDoc>;
  private readonly chunks: Collection<{ files_id: ObjectId }>;

  constructor(
    private readonly client: MongoClient,
    db: Db,
    bucketName: string,
  ) {
    this.bucket = new GridFSBucket(db, { bucketName });
    this.files = db.collection<BlobFileDoc>(`${bucketName}.files`);
    this.chunks = db.collection<{ files_id: ObjectId }>(`${bucketName}.chunks`);
  }

  async prepare(): Promise<void> {
    await this.files.createIndex({ 'metadata.createdAt': 1, _id: 1 });
  }

  async put(id: string, bytes: Buffer, meta: BlobMeta): Promise<void> {
    const fileId = gridFsIdOf(id);
    if (await this.isComplete(fileId)) return;
    // A put that died part-way left chunks and no file document; they go first, or the new
    // chunks would collide with them on GridFS's unique (files_id, n) index.
    await this.chunks.deleteMany({ files_id: fileId });
    const metadata: BlobFileMetadata = { blobId: id, contentType: meta.contentType, name: meta.name, workspaceId: meta.workspaceId, createdAt: meta.createdAt };
    const upload = this.bucket.openUploadStreamWithId(fileId, meta.name, { metadata });
    try {
      await new Promise<void>((resolve, reject) => {
        upload.once('finish', resolve);
        upload.once('error', reject);
        upload.end(bytes);
      });
    } catch (error) {
      await upload.abort().catch(() => undefined); // its chunks, so that none outlive a failed put
      throw error;
    }
  }

  async get(id: string): Promise<StoredBlob | null> {
    const fileId = gridFsIdOf(id);
    const file = await this.files.findOne({ _id: fileId });
    if (file === null) return null;
    const parts: Buffer[] = [];
    try {
      for await (const part of this.bucket.openDownloadStream(fileId)) parts.push(part as Buffer);
    } catch (error) {
      if (!(await this.isComplete(fileId))) return null; // deleted while being read
      throw error;
    }
    const { contentType, name, workspaceId, createdAt } = file.metadata;
    return { bytes: Buffer.concat(parts), meta: { contentType, name, workspaceId, createdAt } };
  }

  async has(id: string): Promise<boolean> {
    return this.isComplete(gridFsIdOf(id));
  }

  async delete(id: string): Promise<void> {
    const fileId = gridFsIdOf(id);
    // The file document first, so that readers stop finding the blob at once; then its chunks.
    // A delete that dies in between leaves chunks without a file, which the delete's retry
    // (or a later put of the id) removes.
    await this.files.deleteOne({ _id: fileId });
    await this.chunks.deleteMany({ files_id: fileId });
  }

  async idsCreatedBefore(before: Date, limit: number): Promise<string[]> {
    const found = await this.files
      .find({ 'metadata.createdAt': { $lt: before } }, { projection: { 'metadata.blobId': 1 } })
      .sort({ 'metadata.createdAt': 1, _id: 1 })
      .limit(limit)
      .toArray();
    return found.map((file) => file.metadata.blobId);
  }

  async close(): Promise<void> {
    await this.client.close();
  }

  private async isComplete(fileId: ObjectId): Promise<boolean> {
    return (await this.files.countDocuments({ _id: fileId }, { limit: 1 })) > 0;
  }
}

/**
 * GridFS ids are ObjectIds; a blob's is derived from its id (the first 12 bytes of its
 * SHA-256), so a retried put or delete finds the chunks of an earlier attempt by id alone.
 */
function gridFsIdOf(id: string): ObjectId {
  assertBlobId(id);
  return new ObjectId(createHash('sha256').update(id).digest().subarray(0, 12));
}
