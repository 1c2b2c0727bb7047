import { seal, unseal, type Keyring } from '@lore/platform/crypto';
import { AppError } from '@lore/platform/kernel';

/** The sealed part of a memory: everything the user wrote. */
export interface MemoryContent {
  readonly memory: string;
  readonly topics: string[];
  readonly metadata: Record<string, unknown>;
}

/** Seals and opens memory content with the memory's own data key. */
export class MemoryCipher {
  constructor(private readonly keyring: Keyring) {}

  async createKey(memoryId: string): Promise<Buffer> {
    return this.keyring.create(memoryId);
  }

  async seal(memoryId: string, content: MemoryContent, key?: Buffer): Promise<string> {
    const dataKey = key ?? (await this.requireKey(memoryId));
    return seal(dataKey, JSON.stringify(content), memoryId);
  }

  async open(memoryId: string, sealed: string): Promise<MemoryContent> {
    const key = await this.requireKey(memoryId);
    return JSON.parse(unseal(key, sealed, memoryId).toString('utf8')) as MemoryContent;
  }

  async shred(memoryIds: readonly string[]): Promise<void> {
    if (memoryIds.length > 0) await this.keyring.shred(memoryIds);
  }

  private async requireKey(memoryId: string): Promise<Buffer> {
    const key = await this.keyring.get(memoryId);
    // A memory whose key is gone was deleted: to the caller it does not exist.
    if (key === null) throw new AppError('not_found', 'Memory not found');
    return key;
  }
}
