import { recordKeyedPurge, type Projection, type ProjectionContext } from '@lore/platform/projections';
import { MEMORY_STREAM_PREFIX, upcastMemoryEvent, type Provenance } from '@lore/memory/domain';
import { MEMORY_VERSIONS, type MemoryVersionDoc } from './memory.read-models';
import { VERSION_PURGE } from './version-purges';

/**
 * Every version of every memory, for history and export, each with why it changed when a model
 * decided it. An invalidation or reinstatement is a version of its own with the text it applies
 * to (the version before); a matched fact (decision `none`) changes nothing and makes none.
 */
export const memoryVersionsProjection: Projection = {
  name: 'memory.memory-versions.v2',
  streamPrefixes: [MEMORY_STREAM_PREFIX],
  collections: [MEMORY_VERSIONS],
  async handle(recorded, context) {
    const event = upcastMemoryEvent(recorded);
    const d = event.data;
    const version = (v: number, kind: MemoryVersionDoc['event'], content: string, at: string, provenance: Provenance | undefined): MemoryVersionDoc => ({
      id: `${d.memoryId}:${v}`,
      memory_id: d.memoryId,
      workspace_id: d.workspaceId,
      user_id: d.userId,
      version: v,
      event: kind,
      content,
      recorded_at: at,
      provenance: provenance ?? null,
    });
    switch (event.type) {
      case 'memory.MemoryCreated':
        context.upsert(MEMORY_VERSIONS, version(1, 'created', event.data.content, event.data.createdAt, event.data.provenance));
        return;
      case 'memory.MemoryReplaced':
        context.upsert(MEMORY_VERSIONS, version(event.data.version, 'replaced', event.data.content, event.data.replacedAt, event.data.provenance));
        return;
      case 'memory.MemoryInvalidated': {
        const content = await contentBefore(context, event.data.memoryId, event.data.version);
        if (content !== null) context.upsert(MEMORY_VERSIONS, version(event.data.version, 'invalidated', content, event.data.invalidatedAt, event.data.provenance));
        return;
      }
      case 'memory.MemoryReinstated': {
        const content = await contentBefore(context, event.data.memoryId, event.data.version);
        if (content !== null) context.upsert(MEMORY_VERSIONS, version(event.data.version, 'reinstated', content, event.data.reinstatedAt, event.data.provenance));
        return;
      }
      case 'memory.MemoryMatched':
        return;
      case 'memory.MemoryDeleted':
        // Its versions go afterwards, by the purge worker (version-purges.ts), not in this batch.
        recordKeyedPurge(context, VERSION_PURGE, { id: event.data.memoryId, workspaceId: event.data.workspaceId, ownerId: event.data.userId }, recorded.position);
        return;
    }
  },
};

async function contentBefore(context: ProjectionContext, memoryId: string, version: number): Promise<string | null> {
  return (await context.get<MemoryVersionDoc>(MEMORY_VERSIONS, `${memoryId}:${version - 1}`))?.content ?? null;
}
