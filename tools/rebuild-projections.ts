/**
 * Rebuilds read models from the event log: `npm run projections:rebuild -- [name ...]`.
 * With no names, every projection of every registered context; a reactor (integration
 * events, erasure) is re-run only when named. Run it while Lore is stopped: it opens the
 * same stores the services use, as configured by the same environment variables. Prints
 * progress per projection and exits non-zero on any failure.
 */
import pino from 'pino';
import { systemClock, unavailable } from '@lore/platform/kernel';
import { createInProcessTransport } from '@lore/platform/transport/in-process';
import { EventProcessors } from '@lore/platform/projections';
import { loadConfig, loadContextConfig } from '@lore/platform/runtime';
import { openContextStores } from '@lore/platform/host';
import { CONTEXTS } from '../apps/contexts';

/** A rebuild is bounded: a projection that cannot catch up in this time is a failure. */
const CATCH_UP_TIMEOUT_MS = 10 * 60_000;

async function main(): Promise<number> {
  const names = process.argv.slice(2);
  const config = loadConfig();
  const logger = pino({ level: 'warn' });
  const transport = createInProcessTransport();
  const found = new Set<string>();
  let failures = 0;
  for (const { service } of CONTEXTS) {
    const stores = await openContextStores(config, service.name, logger);
    try {
      const readYourWrites = { settle: async () => undefined, settleReactor: async () => undefined };
      const parts = service.build({ ...stores, transport, clock: systemClock, config: loadContextConfig(service, process.env), readYourWrites });
      await parts.prepare?.();
      const processors = new EventProcessors(parts, stores.events, stores.documents, (processor, error) => {
        failures++;
        process.stderr.write(`${processor} failed: ${error instanceof Error ? error.message : String(error)}\n`);
      });
      const all = [...parts.projections, ...parts.reactors].map((p) => p.name);
      const chosen = names.length === 0 ? processors.projectionNames() : all.filter((n) => names.includes(n));
      for (const name of chosen) {
        found.add(name);
        const started = Date.now();
        process.stdout.write(`${name}: rebuilding…\n`);
        try {
          await processors.rebuild([name], CATCH_UP_TIMEOUT_MS);
          process.stdout.write(`${name}: rebuilt in ${Date.now() - started} ms\n`);
        } catch (error) {
          failures++;
          process.stderr.write(`${name}: ${error instanceof Error ? error.message : String(error)}\n`);
        }
      }
      await processors.stop();
    } finally {
      await stores.close();
    }
  }
  await transport.close();
  const unknown = names.filter((n) => !found.has(n));
  if (unknown.length > 0) {
    process.stderr.write(`${unavailable(`unknown projection: ${unknown.join(', ')}`).message}\n`);
    failures++;
  }
  return failures === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
