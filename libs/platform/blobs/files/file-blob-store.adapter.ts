import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { open, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { assertBlobId, type BlobMeta, type BlobStore, type StoredBlob } from '@lore/platform/blobs/port';
import { decodeBlobFile, encodeBlobHeader, readBlobHeader } from './blob-file-format';

export interface FileBlobStoreOptions {
  /** The directory the blobs are files in (created 0700 if absent): DATA_DIR/<context>/originals. */
  readonly dir: string;
}

const SUFFIX = '.blob';
/** `.<id>.<pid>.<random>.tmp`: a put being written; the pid tells a crashed writer's leftovers. */
const TEMP = /^\.([A-Za-z0-9_-]+)\.(\d+)\.[0-9a-f]+\.tmp$/;

/**
 * The embedded blob store: one file per blob, `<id>.blob`, holding a small header (the meta, as
 * JSON) and then the bytes, so a blob and its meta are one unit that the filesystem writes and
 * removes atomically (README). A put writes a temporary file, fsyncs it, renames it into place
 * and fsyncs the directory; a delete unlinks the file (and fsyncs the directory). Files and the
 * directory are private to the service's user (0600, 0700).
 */
export function openFileBlobStore(options: FileBlobStoreOptions): BlobStore {
  mkdirSync(options.dir, { recursive: true, mode: 0o700 });
  removeCrashedWrites(options.dir);
  return new FileBlobStore(options.dir);
}

class FileBlobStore implements BlobStore {
  private closed = false;

  constructor(private readonly dir: string) {}

  async put(id: string, bytes: Buffer, meta: BlobMeta): Promise<void> {
    const path = this.pathOf(id);
    if (await exists(path)) return;
    const temp = join(this.dir, `.${id}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
    try {
      const file = await open(temp, 'wx', 0o600);
      try {
        await file.writeFile(encodeBlobHeader(meta, bytes.length));
        await file.writeFile(bytes);
        await file.sync();
      } finally {
        await file.close();
      }
      await rename(temp, path);
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
    await syncDirectory(this.dir);
  }

  async get(id: string): Promise<StoredBlob | null> {
    const path = this.pathOf(id);
    let data: Buffer;
    try {
      data = await readFile(path);
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
    return decodeBlobFile(data, path);
  }

  async has(id: string): Promise<boolean> {
    return exists(this.pathOf(id));
  }

  async delete(id: string): Promise<void> {
    // Unlinking frees the file's blocks without overwriting them: what keeps a deleted blob
    // unreadable is that its bytes were sealed under a key that is shredded (README).
    await rm(this.pathOf(id), { force: true });
    await syncDirectory(this.dir);
  }

  async idsCreatedBefore(before: Date, limit: number): Promise<string[]> {
    this.assertOpen();
    // A scan of every blob's header: the retention sweep's query, run now and then, never per request.
    const found: { id: string; createdAt: number }[] = [];
    for (const name of await readdir(this.dir)) {
      if (!name.endsWith(SUFFIX)) continue;
      const meta = await readBlobHeader(join(this.dir, name));
      if (meta !== null && meta.createdAt.getTime() < before.getTime()) found.push({ id: name.slice(0, -SUFFIX.length), createdAt: meta.createdAt.getTime() });
    }
    found.sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1));
    return found.slice(0, limit).map((blob) => blob.id);
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  private pathOf(id: string): string {
    this.assertOpen();
    assertBlobId(id);
    return join(this.dir, `${id}${SUFFIX}`);
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('blob store closed');
  }
}

/**
 * Removes the temporary files of puts whose process died (kill -9, power loss) before renaming
 * them: bytes no caller will ever ask for or delete. Another live process's are left alone.
 */
function removeCrashedWrites(dir: string): void {
  for (const name of readdirSync(dir)) {
    const pid = TEMP.exec(name)?.[2];
    if (pid !== undefined && !isAlive(Number(pid))) rmSync(join(dir, name), { force: true });
  }
}

function isAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'; // alive, another user's
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch (error) {
    if (isMissing(error)) return false;
    throw error;
  }
}

/** Makes a rename or unlink durable: the directory entry is on disk, not only the file's data. */
async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException).code === 'ENOENT';
}
