import type { KeyedPurge } from '@lore/platform/projections';
import { MEMORY_VERSIONS } from './memory.read-models';

/**
 * A deleted memory's versions, waiting to be removed (see `PurgeWorker`). They used to go inside
 * the versions projection's batch that applied the deletion; a memory has as many versions as it
 * had changes (an extraction that keeps updating one profile memory, say), and 50,000 of them held a
 * batch 0.95 s in a throwaway measurement, while every workspace's memory writes wait for the
 * projection. Now the projection records a purge; nothing reads a deleted memory's versions
 * meanwhile (its history answers 404 with the memory), the worker removes them afterwards, then
 * has the engine forget them (WAL truncated). The memory's DELETE waits for that. The records are
 * not the projection's own collection: a rebuild must not drop a pending purge (the deleted
 * memory's stream is erased, so a rebuild recreates none of its versions either).
 */
export const VERSION_PURGE: KeyedPurge = { records: 'memory_version_purges', collection: MEMORY_VERSIONS, key: 'memory_id', order: 'version' };
