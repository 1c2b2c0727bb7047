import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import type { ContextDefinition } from '@lore/platform/cqrs';
import type { EventFeed, Transport } from '@lore/platform/transport/port';
import { createInProcessTransport } from '@lore/platform/transport/in-process';
import { journaledTransport, openEmbeddedEventFeed } from '@lore/platform/transport/sqlite-feed';
import { loadConfig } from '@lore/platform/runtime';
import { ContextHost, openContextStores, type ContextStores } from '@lore/platform/host';

export interface RunningContext {
  /** Any caller on the transport, as a client on NATS would be: no gateway in front. */
  readonly transport: Transport;
  /** The integration events the context published, as the standalone app keeps them. */
  readonly feed: EventFeed;
  /** Its DATA_DIR (a temporary directory, removed on stop): what a thief with the disk would read. */
  readonly dataDir: string;
  /** Opens the context's stores beside the running context (to write what a crash would leave, say). */
  openStores(): Promise<ContextStores>;
  stop(): Promise<void>;
}

/** Hosts one context on embedded stores in a temporary DATA_DIR, over the in-process transport. */
export async function startContext<C>(definition: ContextDefinition<C>, env: NodeJS.ProcessEnv = {}): Promise<RunningContext> {
  const dataDir = mkdtempSync(join(tmpdir(), `lore-${definition.name}-`));
  const fullEnv = { ...env, DATA_DIR: dataDir, LORE_MASTER_KEY: Buffer.alloc(32, 9).toString('base64') };
  const config = loadConfig(fullEnv);
  const feed = openEmbeddedEventFeed(dataDir, config.eventsStreamMaxAgeHours);
  const transport = journaledTransport(createInProcessTransport(), feed);
  const host = new ContextHost(definition, { config, transport, feed, logger: pino({ level: 'silent' }), env: fullEnv });
  await host.start();
  return {
    transport,
    feed,
    dataDir,
    openStores: () => openContextStores(loadConfig(fullEnv), definition.name),
    async stop() {
      await host.stop();
      await transport.close();
      await feed.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
