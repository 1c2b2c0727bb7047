import type { Logger } from 'pino';
import { appendedStreams, systemClock, waitWithinDeadline, withRequestContext } from '@lore/platform/kernel';
import { auditVerifyMessage, contextStatusMessage, handle, parkedEventsListMessage, parkedEventsRetryMessage, serveMessages, type EventFeed, type Transport, type TransportSubscription } from '@lore/platform/transport/port';
import type { ContextDefinition, ReadYourWrites } from '@lore/platform/cqrs';
import { EventProcessors, type FeedCheckpoints } from '@lore/platform/projections';
import { onMetricSourceFailure, registerParkedCountSource, registerProcessorLagSource } from '@lore/platform/telemetry';
import { loadContextConfig, type Lifecycle, type LoreConfig } from '@lore/platform/runtime';
import type { EmbeddingModels } from '@lore/platform/embeddings/port';
import { openEgress } from '@lore/platform/egress/node';
import { openContextStores, type ContextStores } from './context-stores';
import { openEmbeddingModels } from './embedding-models';
import { openRerankers } from './rerank-providers';
import type { Rerankers } from '@lore/platform/rerank/port';
import { openChatModel } from './chat-model';
import { verifyWorkspaceChains } from './workspace-chain-audit';

/**
 * Hosts one context in a process: opens its stores, builds it from its definition, starts
 * its projections and reactors, serves its messages (and its status, for `/ready`) on the
 * transport; closes all of it on stop.
 */
export class ContextHost<C = unknown> implements Lifecycle {
  private stores: ContextStores | null = null;
  private processors: EventProcessors | null = null;
  private subscriptions: TransportSubscription[] = [];
  private workers: { start(): Promise<void>; stop(): Promise<void> }[] = [];
  /** Removes this host's gauges from the process's metrics. */
  private unregisterMetrics: (() => void) | null = null;
  /** Opened here when the process did not pass its shared models. */
  private ownEmbeddings: EmbeddingModels | null = null;
  private ownRerankers: Rerankers | null = null;

  constructor(
    readonly definition: ContextDefinition<C>,
    private readonly deps: {
      readonly config: LoreConfig;
      readonly transport: Transport;
      /** The integration events as a log (the process's: shared by its contexts). */
      readonly feed: EventFeed;
      /** Where the feed keeps its publishers' checkpoints, when it does (standalone's SQLite feed; see `Reactor.checkpointInFeed`). */
      readonly feedCheckpoints?: FeedCheckpoints;
      readonly logger: Logger;
      readonly env?: NodeJS.ProcessEnv;
      /** The process's models, shared by the contexts it hosts; opened from the environment when absent. */
      readonly embeddings?: EmbeddingModels;
      /** The process's rerank providers; opened from the environment (with this host's egress) when absent. */
      readonly rerankers?: Rerankers;
      /**
       * An embedded event store commits on a writer thread (standalone, whose one event loop also
       * serves HTTP and every other context). A service process commits on its own loop: with
       * several processes on a machine the thread hop cost more CPU than it freed (README, "The
       * write path: measured").
       */
      readonly eventStoreWriterThread?: boolean;
    },
  ) {}

  async start(): Promise<void> {
    const { definition, deps } = this;
    const log = deps.logger.child({ context: definition.name });
    const contextConfig = loadContextConfig(definition, deps.env ?? process.env);
    const stores = await openContextStores(deps.config, definition.name, log, { eventStoreWriterThread: deps.eventStoreWriterThread === true });
    this.stores = stores;
    // Bounded by the request's deadline too: a late read model is a clear 503, not a caller's timeout.
    const readYourWrites: ReadYourWrites = {
      // Within the request's deadline; the streams the request appended to: a parked one answers at once (see EventProcessors.waitFor).
      settle: (position, timeoutMs) => this.running().waitFor(position, waitWithinDeadline(timeoutMs ?? deps.config.readYourWritesTimeoutMs), appendedStreams()),
      settleReactor: (name, position, timeoutMs, streams = []) =>
        this.running().waitForOne(name, position, waitWithinDeadline(timeoutMs ?? deps.config.readYourWritesTimeoutMs), [...appendedStreams(), ...streams]),
      settleAllBut: (name, position, timeoutMs, erasedStreams, unwaited) => this.running().waitForAllBut(name, position, timeoutMs, erasedStreams, unwaited),
      settleWithin: (wait) => wait(waitWithinDeadline(deps.config.readYourWritesTimeoutMs)),
    };
    const embeddings = deps.embeddings ?? (this.ownEmbeddings = openEmbeddingModels(deps.env ?? process.env));
    const egress = openEgress({ allow: deps.config.egressAllow, ...(deps.config.egressProxyUrl === undefined ? {} : { proxyUrl: deps.config.egressProxyUrl }) });
    const rerankers = deps.rerankers ?? (this.ownRerankers = openRerankers(egress, deps.env ?? process.env));
    const chat = openChatModel(egress, deps.env ?? process.env);
    const parts = definition.build({ ...stores, embeddings, rerankers, chat, transport: deps.transport, feed: deps.feed, egress, clock: systemClock, config: contextConfig, readYourWrites, log });
    await parts.prepare?.();
    const onError = (processor: string, error: unknown): void => log.error({ processor, err: error }, 'event processor failed');
    const onParked = (record: { processor: string; streamId: string; eventId: string; eventType: string; workspaceId: string | null; attempts: number }): void =>
      log.error({ processor: record.processor, streamId: record.streamId, eventId: record.eventId, eventType: record.eventType, workspaceId: record.workspaceId, attempts: record.attempts }, 'event parked: the processor goes on with other streams');
    const processors = new EventProcessors(parts, stores.events, stores.documents, onError, stores.vectors, { onParked, feedCheckpoints: deps.feedCheckpoints });
    this.processors = processors;
    await processors.start();
    const unregisterLag = registerProcessorLagSource(processors);
    onMetricSourceFailure((metric, error) => log.warn({ metric, err: error }, 'a metric source failed: its lines are left out of this scrape'));
    const unregisterParked = registerParkedCountSource(processors);
    this.unregisterMetrics = () => {
      unregisterLag();
      unregisterParked();
    };
    this.workers = [...(parts.workers ?? [])];
    for (const worker of this.workers) await worker.start();
    const status = handle(contextStatusMessage(definition.name), async () => ({ ready: processors.isReady(), processors: processors.status(), parked: processors.parkedCounts() }));
    const admin = [
      handle(parkedEventsListMessage(definition.name), async (request) => ({ items: processors.listParked(request) })),
      handle(parkedEventsRetryMessage(definition.name), async (request) => {
        const report = await processors.retryParked(request);
        return report === null ? { found: false, applied: 0, failed: [] } : { found: true, applied: report.applied, failed: [...report.failed] };
      }),
      handle(auditVerifyMessage(definition.name), (request) => verifyWorkspaceChains(stores, parts.auditedAggregates ?? [], request, systemClock)),
    ];
    this.subscriptions = await serveMessages(deps.transport, [...parts.handlers, status, ...admin].map((h) => ({ ...h, handle: logged(h.handle, log) })));
    log.info('context started');
  }

  async stop(): Promise<void> {
    this.unregisterMetrics?.();
    this.unregisterMetrics = null;
    for (const subscription of this.subscriptions.splice(0)) await subscription.close();
    for (const worker of this.workers.splice(0)) await worker.stop();
    await this.processors?.stop();
    await this.stores?.close();
    await this.ownEmbeddings?.close();
    await this.ownRerankers?.close();
  }

  private running(): EventProcessors {
    if (this.processors === null) throw new Error(`${this.definition.name} is not started`);
    return this.processors;
  }
}

/**
 * The transport hides unexpected errors from callers; they are logged here, once, with the
 * request id. The request id also becomes the request context, so the events the handler
 * appends carry it (and it as their correlation id), and so does the caller's deadline.
 */
function logged(handler: Parameters<typeof serveMessages>[1][number]['handle'], log: Logger): typeof handler {
  // A promise chain rather than an async function: this wraps every message served.
  return (payload, context) => {
    const failed = (error: unknown): never => {
      if (!(error instanceof Error && 'code' in error)) log.error({ subject: context.subject, reqId: context.requestId, err: error }, 'handler failed');
      throw error;
    };
    try {
      return withRequestContext({ requestId: context.requestId, deadline: context.deadline, appendedStreams: new Set() }, () => handler(payload, context)).catch(failed);
    } catch (error) {
      return Promise.reject(error).catch(failed);
    }
  };
}
