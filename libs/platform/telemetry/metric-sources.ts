import { createHash } from 'node:crypto';
import { Counter, Gauge } from 'prom-client';
import { metricsRegistry } from './metrics';

/**
 * Gauges read at scrape time from whatever the process hosts. A host registers its sources
 * when it starts and removes them when it stops (the standalone app hosts every context; a
 * test may start it twice in one process), so a scrape never reads a stopped component.
 */

/** How far each processor (projection or reactor) is behind the log's head, in events. */
export interface ProcessorLagSource {
  lagByProcessor(): Promise<Record<string, number>>;
}

/** Events set aside (parked) per processor after they kept failing. */
export interface ParkedCountSource {
  parkedCounts(): Record<string, number> | Promise<Record<string, number>>;
}

/** Contents waiting for ingestion, per workspace id. */
export interface IngestionQueueSource {
  queueDepthByWorkspace(): Map<string, number>;
}

const lagSources = new Set<ProcessorLagSource>();
const parkedSources = new Set<ParkedCountSource>();
const queueSources = new Set<IngestionQueueSource>();

function adder<T>(set: Set<T>): (source: T) => () => void {
  return (source) => {
    set.add(source);
    return () => void set.delete(source);
  };
}

const sourceFailures = new Counter({
  name: 'lore_metric_source_failures_total',
  help: 'Reads of a metric source that failed during a scrape (its gauge lacks that source\'s lines in that scrape), by gauge.',
  labelNames: ['metric'] as const,
  registers: [metricsRegistry],
});

/** Where a failing source is reported besides the counter (a host's logger); a process warning until one is set. */
let reportFailure: (metric: string, error: unknown) => void = (metric, error) =>
  process.emitWarning(`metric source of ${metric} failed: ${error instanceof Error ? error.message : String(error)}`);
export function onMetricSourceFailure(report: (metric: string, error: unknown) => void): void {
  reportFailure = report;
}

/**
 * One source's reading, or nothing when it fails: prom-client fails the whole scrape when one
 * gauge's collect rejects, so one broken component (a store that is away) would hide every
 * other metric exactly when they matter. The failure is counted and reported instead.
 */
async function readSource<T>(metric: string, read: () => T | Promise<T>): Promise<T | undefined> {
  try {
    return await read();
  } catch (error) {
    sourceFailures.inc({ metric });
    reportFailure(metric, error);
    return undefined;
  }
}

/** Each returns the function that unregisters the source. */
export const registerProcessorLagSource = adder(lagSources);
export const registerParkedCountSource = adder(parkedSources);
export const registerIngestionQueueSource = adder(queueSources);

new Gauge({
  name: 'lore_processor_lag_events',
  help: 'Events in a processor\'s streams after its checkpoint, up to the log head (projections and reactors of the services this process hosts).',
  labelNames: ['processor'] as const,
  registers: [metricsRegistry],
  async collect() {
    this.reset();
    for (const source of lagSources) {
      const lags = await readSource('lore_processor_lag_events', () => source.lagByProcessor());
      for (const [processor, lag] of Object.entries(lags ?? {})) this.set({ processor }, lag);
    }
  },
});

new Gauge({
  name: 'lore_processor_parked_events',
  help: 'Events a processor set aside after repeated failures, waiting for an operator to retry them.',
  labelNames: ['processor'] as const,
  registers: [metricsRegistry],
  async collect() {
    this.reset();
    for (const source of parkedSources) {
      const counts = await readSource('lore_processor_parked_events', () => source.parkedCounts());
      for (const [processor, count] of Object.entries(counts ?? {})) this.set({ processor }, count);
    }
  },
});

new Gauge({
  name: 'lore_ingestion_queue_depth',
  help: 'Contents waiting for ingestion, per workspace (label: the first 16 hex digits of SHA-256 of the workspace id). Only workspaces with queued work appear.',
  labelNames: ['workspace'] as const,
  registers: [metricsRegistry],
  async collect() {
    this.reset();
    const totals = new Map<string, number>();
    for (const source of queueSources) {
      const depths = await readSource('lore_ingestion_queue_depth', () => source.queueDepthByWorkspace());
      for (const [workspaceId, depth] of depths ?? []) {
        if (depth > 0) totals.set(workspaceId, (totals.get(workspaceId) ?? 0) + depth);
      }
    }
    for (const [workspaceId, depth] of totals) this.set({ workspace: workspaceLabel(workspaceId) }, depth);
  },
});

/**
 * The label of a workspace: a hash, so the metrics never list tenant ids (the gateway's
 * `/metrics` may be reachable by tenants when METRICS_TOKEN is unset), yet an operator finds a
 * known workspace's line: `printf %s "$WORKSPACE_ID" | sha256sum | cut -c1-16`. Bounded by the
 * workspaces that have queued work at the time of the scrape.
 */
export function workspaceLabel(workspaceId: string): string {
  return createHash('sha256').update(workspaceId).digest('hex').slice(0, 16);
}
