import type { MemoryType } from '@lore/memory/domain';

/** Documents of the memory read models; `content` stays sealed at rest. */
export interface MemoryDoc {
  readonly id: string;
  readonly workspace_id: string;
  readonly user_id: string;
  readonly memory_type: MemoryType;
  readonly content: string;
  readonly version: number;
  readonly created_at: string;
  readonly updated_at: string;
  /** The stream revision it reflects (`evolveDocument`). */
  readonly revision: number;
  readonly [field: string]: unknown;
}

export interface MemoryVersionDoc {
  readonly id: string;
  readonly memory_id: string;
  readonly workspace_id: string;
  readonly user_id: string;
  readonly version: number;
  readonly event: 'created' | 'replaced';
  readonly content: string;
  readonly recorded_at: string;
  readonly [field: string]: unknown;
}

export const MEMORIES = 'memories';
export const MEMORY_VERSIONS = 'memory_versions';
