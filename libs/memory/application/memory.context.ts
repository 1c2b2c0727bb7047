import { defineContext, periodicTask } from '@lore/platform/cqrs';
import { SealedFields } from '@lore/platform/crypto';
import { handle } from '@lore/platform/transport/port';
import { memoryMessages } from '@lore/memory/contracts';
import { conversationMessages } from '@lore/conversations/contracts';
import { memoryServiceConfig } from './memory-service.config';
import { MemoryCommands } from './memory.commands';
import { MemoryQueries } from './memory.queries';
import type { DecisionNote, MemoryContent } from './memory-content';
import { MemoryExtraction } from './memory-extraction';
import { memoriesProjection } from './memories.projection';
import { memoryVersionsProjection } from './memory-versions.projection';
import { memoryEventsPublisher } from './memory-events.publisher';
import { MEMORY_ERASURE, memoryErasureReactor } from './memory-erasure.reactor';
import { MEMORIES, MEMORY_VERSIONS } from './memory.read-models';
import { MEMORY_SEARCH_INDEX, memorySearchIndexReactor } from './memory-search-index.reactor';
import { MemoryIndexWrites } from './memory-index-writes';
import { MemorySearch } from './memory-search.query';
import { memorySearchPositionsProjection } from './memory-search-positions.projection';
import { memoryStreamId } from '@lore/memory/domain';
import { afterErasure, keyedPurgeWork, PurgeWorker } from '@lore/platform/projections';
import { VERSION_PURGE } from './version-purges';

/**
 * How long erasure may wait for the read models and the publisher to pass a deletion (at
 * start-up they may be catching up); past it, erasure fails and its runner retries.
 */
const ERASURE_WAIT_MS = 10 * 60_000;

/** The memory context: per-user memories, sealed at rest, permanently deletable. */
export const memoryContext = defineContext({
  name: 'memory',
  config: memoryServiceConfig,
  build(deps) {
    const messages = memoryMessages(deps.config.limits);
    const sealed = new SealedFields<MemoryContent>(deps.keyring, 'Memory');
    const notes = new SealedFields<DecisionNote>(deps.keyring, 'Memory');
    // A deleted memory's versions, removed after the deletion's batch (version-purges.ts), once its
    // erasure (which never waits for them) has passed the deletion; its DELETE waits for that too.
    const purges = new PurgeWorker({ ...deps, ...keyedPurgeWork(deps.documents, VERSION_PURGE), kind: 'versions', readModelsPassed: afterErasure(deps.readYourWrites, ERASURE_WAIT_MS, (purge) => ({ reactor: MEMORY_ERASURE, stream: memoryStreamId(purge.id) })) });
    const commands = new MemoryCommands({
      ...deps,
      sealed,
      notes,
      quota: deps.config.quota,
      ttlSecondsByType: deps.config.ttlSecondsByType,
      versionsPurged: (memoryIds, timeoutMs) => purges.drained(memoryIds, timeoutMs),
    });
    const queries = new MemoryQueries(deps.documents, sealed, notes, deps.clock);
    // The search index's writers (its reactor, a search's catch-up) take turns.
    const indexWrites = new MemoryIndexWrites();
    const search = new MemorySearch({ ...deps, sealed, indexWrites });
    const extraction = new MemoryExtraction({
      ...deps,
      commands,
      search,
      sealed,
      limits: deps.config.limits,
      settings: deps.config.extraction,
      conversationMessages: conversationMessages(deps.config.conversations).conversationMessages,
    });
    return {
      handlers: [
        handle(messages.create, (c) => commands.create(c)),
        handle(messages.replace, (c) => commands.replace(c)),
        handle(messages.delete, (c) => commands.delete(c)),
        handle(messages.deleteAllOfUser, (c) => commands.deleteAllOfUser(c)),
        handle(messages.get, (q) => queries.get(q)),
        handle(messages.list, (q) => queries.list(q)),
        handle(messages.history, (q) => queries.history(q)),
        handle(messages.search, (q) => search.search(q)),
        handle(messages.export, (q) => queries.export(q)),
        handle(messages.extract, (c) => extraction.extract(c)),
        handle(messages.undoDecision, (c) => commands.undoDecision(c)),
      ],
      workers: [
        periodicTask({ name: 'memory expiry sweep', firstAfterMs: 1_000, everyMs: deps.config.expirySweepMs, log: deps.log, routine: true, run: () => commands.expireDue() }),
        purges,
      ],
      auditedAggregates: [{ collection: MEMORIES, streamId: memoryStreamId }],
      projections: [memoriesProjection, memoryVersionsProjection, memorySearchPositionsProjection],
      reactors: [
        memoryEventsPublisher(deps.transport),
        memorySearchIndexReactor({ ...deps, sealed, indexWrites }),
        memoryErasureReactor({
          ...deps,
          indexWrites,
          processedByOthers: (position, erased) => deps.readYourWrites.settleAllBut(MEMORY_ERASURE, position, ERASURE_WAIT_MS, erased, [MEMORY_SEARCH_INDEX]),
        }),
      ],
      async prepare() {
        const memories = deps.documents.collection(MEMORIES);
        await memories.ensureIndex(['workspace_id', 'user_id', 'created_at']);
        await memories.ensureIndex(['workspace_id', 'user_id', 'updated_at']);
        await deps.documents.collection(MEMORY_VERSIONS).ensureIndex(['memory_id', 'version']);
        await deps.documents.collection(MEMORY_VERSIONS).ensureIndex(['workspace_id', 'user_id']);
        await memories.ensureIndex(['expires_at']);
        await deps.documents.collection(VERSION_PURGE.records).ensureIndex(['workspace_id', 'position']);
        await deps.documents.collection(VERSION_PURGE.records).ensureIndex(['workspace_id', 'owner_id']);
      },
    };
  },
});
