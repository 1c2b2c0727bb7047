import type { MemoryRecord, MemoryVersion } from '@lore/memory/contracts';
import type { MemoryDoc, MemoryVersionDoc } from './memory.read-models';

/*
 * A memory's content, sealed at rest, and what the API shows once it is opened: a read-model
 * document plus its opened content make the `MemoryRecord`/`MemoryVersion` that
 * `@lore/memory/contracts` (memory.records.ts) defines.
 */

/** The sealed part of a memory: everything the user wrote. */
export interface MemoryContent {
  readonly memory: string;
  readonly topics: string[];
  readonly metadata: Record<string, unknown>;
}

export function toMemoryRecord(doc: Pick<MemoryDoc, 'id' | 'user_id' | 'memory_type' | 'created_at' | 'updated_at'>, content: MemoryContent): MemoryRecord {
  return {
    memory_id: doc.id,
    user_id: doc.user_id,
    memory: content.memory,
    memory_type: doc.memory_type,
    topics: content.topics,
    metadata: content.metadata,
    created_at: doc.created_at,
    updated_at: doc.updated_at,
  };
}

export function toMemoryVersion(doc: MemoryVersionDoc, content: MemoryContent): MemoryVersion {
  return {
    version: doc.version,
    event: doc.event,
    memory: content.memory,
    topics: content.topics,
    metadata: content.metadata,
    recorded_at: doc.recorded_at,
  };
}
