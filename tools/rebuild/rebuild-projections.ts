/**
 * Rebuilds read models from the event log: `npm run projections:rebuild -- [name ...]`.
 * With no names, every projection of every registered context. Reactors (integration
 * events, erasure) are not rebuilt: re-running their effects is not a rebuild. Run it while Lore is stopped: it opens the
 * same stores the services use, as configured by the same environment variables. Prints
 * progress per projection and exits non-zero on any failure.
 */
import { NO_RERANKERS } from '@lore/platform/rerank/port';
import { keepSqliteTempFilesIn } from '@lore/platform/sqlite';
import pino from 'pino';
import type { Writable } from 'node:stream';
import { createNodeEgress } from '@lore/platform/egress/node';
import { systemClock, unavailable, type Position } from '@lore/platform/kernel';
import { createInProcessTransport } from '@lore/platform/transport/in-process';
import type { EventFeed } from '@lore/platform/transport/port';
import { EventProcessors } from '@lore/platform/projections';
import { loadConfig, loadContextConfig } from '@lore/platform/runtime';
import { openContextStores, openEmbeddingModels } from '@lore/platform/host';
import { CONTEXTS } from '../../apps/contexts';

/** A rebuild is bounded: a projection that cannot catch up in this time is a failure. */
const CATCH_UP_TIMEOUT_MS = 10 * 60_000;
const PROGRESS_EVERY_MS = 2_000;

/** How far `at` is towards `head`, as a percentage (commit positions grow with the log in both stores). */
function share(at: Position, head: Position): string {
  if (head.commit <= 0n) return '100%';
  const done = at.commit < 0n ? 0n : at.commit;
  return `${Number((done * 1000n) / head.commit) / 10}%`;
}

/** Projections are built from the event store; only workers (never started here) read the feed. */
const NO_FEED: EventFeed = {
  follow: () => {
    throw new Error('rebuilding projections reads no event feed');
  },
  bounds: () => Promise.reject(new Error('rebuilding projections reads no event feed')),
  close: async () => undefined,
};

/** Rebuilds the named projections (default: all); resolves to the process exit code. */
export async function rebuildProjections(
  names: readonly string[],
  io: { readonly env: NodeJS.ProcessEnv; readonly stdout: Pick<Writable, 'write'>; readonly stderr: Pick<Writable, 'write'> },
): Promise<number> {
  const { stdout, stderr } = io;
  const config = loadConfig(io.env);
  keepSqliteTempFilesIn(config.dataDir);
  const logger = pino({ level: 'warn' });
  const transport = createInProcessTransport();
  // Projections read events, never models: nothing is loaded, they only complete the deps.
  const embeddings = openEmbeddingModels(io.env);
  const found = new Set<string>();
  let failures = 0;
  for (const { service } of CONTEXTS) {
    const stores = await openContextStores(config, service.name, logger);
    try {
      const readYourWrites = { settle: async () => undefined, settleReactor: async () => undefined, settleAllBut: async () => undefined, settleWithin: async () => undefined };
      // Rebuilding reads the log only: nothing it builds is asked to reach out, so egress stays closed,
      // and no chat model is there to call: model decisions (memory extraction) replay from their events.
      const parts = service.build({ ...stores, embeddings, rerankers: NO_RERANKERS, chat: null, transport, feed: NO_FEED, egress: createNodeEgress(), clock: systemClock, config: loadContextConfig(service, io.env), readYourWrites, log: logger });
      await parts.prepare?.();
      const processors = new EventProcessors(
        parts,
        stores.events,
        stores.documents,
        (processor, error) => {
          failures++;
          stderr.write(`${processor} failed: ${error instanceof Error ? error.message : String(error)}\n`);
        },
        stores.vectors,
      );
      const projections = processors.projectionNames();
      const chosen = names.length === 0 ? projections : projections.filter((n) => names.includes(n));
      for (const name of chosen) {
        found.add(name);
        const started = Date.now();
        const head = await stores.events.headPosition();
        stdout.write(`${name}: rebuilding…\n`);
        // A long rebuild says how far it has got, every PROGRESS_EVERY_MS, as a share of the log's head.
        const progress = setInterval(() => stdout.write(`${name}: ${share(processors.checkpointOf(name), head)} of the log\n`), PROGRESS_EVERY_MS);
        try {
          await processors.rebuild([name], CATCH_UP_TIMEOUT_MS);
          stdout.write(`${name}: rebuilt in ${Date.now() - started} ms\n`);
        } catch (error) {
          failures++;
          stderr.write(`${name}: ${error instanceof Error ? error.message : String(error)}\n`);
        } finally {
          clearInterval(progress);
        }
      }
      await processors.stop();
    } finally {
      await stores.close();
    }
  }
  await transport.close();
  await embeddings.close();
  const unknown = names.filter((n) => !found.has(n));
  if (unknown.length > 0) {
    stderr.write(`${unavailable(`unknown projection: ${unknown.join(', ')}`).message}\n`);
    failures++;
  }
  return failures === 0 ? 0 : 1;
}
