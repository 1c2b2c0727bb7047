/**
 * Rebuilds read models from the event log: `npm run projections:rebuild -- [name ...]`.
 * With no names, every read model of every context; integration-event publishers are
 * rebuilt (re-announcing history) only when named. Run it while Lore is stopped: it opens
 * the same stores the services use, as configured by the same environment variables.
 */
import { systemClock } from '@lore/platform/kernel';
import { createInProcessTransport } from '@lore/platform/transport/in-process';
import { loadConfig, openContextStores, type ContextDeps, type ContextService } from '@lore/platform/runtime';
import { KeysService } from '@lore/keys/application';
import { MemoryService } from '@lore/memory/application';

const CONTEXTS: Record<string, (deps: ContextDeps) => ContextService> = {
  keys: (deps) => new KeysService({ ...deps, readYourWritesTimeoutMs: deps.config.readYourWritesTimeoutMs }),
  memory: (deps) => new MemoryService({ ...deps, readYourWritesTimeoutMs: deps.config.readYourWritesTimeoutMs }),
};

async function main(): Promise<void> {
  const names = process.argv.slice(2);
  const config = loadConfig();
  const transport = createInProcessTransport();
  let failed = false;
  for (const [context, build] of Object.entries(CONTEXTS)) {
    const stores = await openContextStores(config, context);
    const service = build({ ...stores, transport, clock: systemClock, config, onProjectionError: (p, e) => {
      failed = true;
      process.stderr.write(`${p} failed: ${String(e)}\n`);
    } });
    const chosen = service.projections.runners
      .map((r) => r.projection.name)
      .filter((name) => (names.length === 0 ? !name.includes('integration-events') : names.includes(name)));
    const started = Date.now();
    const rebuilt = await service.projections.rebuild(chosen);
    const head = await stores.events.headPosition();
    await service.projections.waitFor(head.commit < 0n ? null : head, 10 * 60_000).catch(() => undefined);
    await service.projections.stop();
    for (const name of rebuilt) process.stdout.write(`rebuilt ${name} (${Date.now() - started} ms)\n`);
    await stores.close();
  }
  await transport.close();
  if (failed) process.exit(1);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
