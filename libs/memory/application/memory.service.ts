import { ProjectionSet } from '@lore/platform/projections';
import { messageHandler, type ContextServiceDeps, type MessageRoutes } from '@lore/platform/cqrs';
import { CreateMemoryCommand, ListMemoriesQuery, MemoryRef, MemorySubjects, ReplaceMemoryCommand, UserScope } from '@lore/memory/contracts';
import { MemoryCipher } from './memory-content';
import { MemoryCommands } from './memory.commands';
import { MemoryQueries } from './memory.queries';
import { memoriesProjection } from './memories.projection';
import { memoryVersionsProjection } from './memory-versions.projection';
import { memoryEventsPublisher } from './memory-events.publisher';
import { MEMORIES, MEMORY_VERSIONS } from './memory.read-models';

export type MemoryServiceDeps = ContextServiceDeps;

/** The memory context as a service: its message routes and the projections behind its reads. */
export class MemoryService {
  readonly projections: ProjectionSet;
  readonly commands: MemoryCommands;
  readonly queries: MemoryQueries;

  constructor(private readonly deps: MemoryServiceDeps) {
    const cipher = new MemoryCipher(deps.keyring);
    this.projections = new ProjectionSet(
      [memoriesProjection, memoryVersionsProjection, memoryEventsPublisher(deps.transport)],
      deps.events,
      deps.documents,
      deps.onProjectionError,
    );
    this.commands = new MemoryCommands({ ...deps, cipher, projections: this.projections });
    this.queries = new MemoryQueries(deps.documents, cipher, deps.clock);
  }

  async start(): Promise<void> {
    const memories = this.deps.documents.collection(MEMORIES);
    await memories.ensureIndex(['workspace_id', 'user_id', 'created_at']);
    await memories.ensureIndex(['workspace_id', 'user_id', 'updated_at']);
    await this.deps.documents.collection(MEMORY_VERSIONS).ensureIndex(['memory_id', 'version']);
    await this.deps.documents.collection(MEMORY_VERSIONS).ensureIndex(['workspace_id', 'user_id']);
    await this.projections.start();
  }

  async stop(): Promise<void> {
    await this.projections.stop();
  }

  routes(): MessageRoutes {
    return {
      [MemorySubjects.create]: messageHandler(CreateMemoryCommand, (c) => this.commands.create(c)),
      [MemorySubjects.replace]: messageHandler(ReplaceMemoryCommand, (c) => this.commands.replace(c)),
      [MemorySubjects.delete]: messageHandler(MemoryRef, (c) => this.commands.delete(c)),
      [MemorySubjects.deleteAllOfUser]: messageHandler(UserScope, (c) => this.commands.deleteAllOfUser(c)),
      [MemorySubjects.get]: messageHandler(MemoryRef, (q) => this.queries.get(q)),
      [MemorySubjects.list]: messageHandler(ListMemoriesQuery, (q) => this.queries.list(q)),
      [MemorySubjects.history]: messageHandler(MemoryRef, (q) => this.queries.history(q)),
      [MemorySubjects.export]: messageHandler(UserScope, (q) => this.queries.export(q)),
    };
  }
}
