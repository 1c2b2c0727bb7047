import type { Filter } from '@lore/platform/documents/port';
import type { MemoryType, Provenance } from '@lore/memory/domain';

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
  /** Invalidated by a decision: out of lists and search (absent in documents written before v2). */
  readonly superseded?: boolean;
  /** When it leaves reads (filtered at once) and is erased (by the expiry sweep); null: never. */
  readonly expires_at?: string | null;
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
  readonly event: 'created' | 'replaced' | 'invalidated' | 'reinstated';
  readonly content: string;
  readonly recorded_at: string;
  /** Why it changed, when a model decided it (or an undo); its note is sealed. */
  readonly provenance: Provenance | null;
  readonly [field: string]: unknown;
}

export const MEMORIES = 'memories';
export const MEMORY_VERSIONS = 'memory_versions';

/** The memories lists, search and extraction see: not superseded, not expired (expiry is filtered here at once; the sweep erases later). */
export function liveMemoryFilter(now: Date): Filter {
  return { superseded: false, $or: [{ expires_at: { $exists: false } }, { expires_at: { $gt: now.toISOString() } }] };
}
