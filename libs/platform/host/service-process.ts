import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { ContextDefinition } from '@lore/platform/cqrs';
import { createLogger, LifecycleModule, loadConfig, metricsListener, openDistributedEventFeed, openTransport, startTelemetry, tierUpSooner } from '@lore/platform/runtime';
import { keepSqliteTempFilesIn } from '@lore/platform/sqlite';
import { ContextHost } from './context-host';

/**
 * Runs one context as its own process, serving its messages over NATS until SIGTERM, and its
 * metrics on METRICS_PORT when set.
 */
export async function runServiceProcess<C>(definition: ContextDefinition<C>): Promise<void> {
  const telemetry = startTelemetry(`lore-${definition.name}`);
  tierUpSooner();
  const config = loadConfig();
  keepSqliteTempFilesIn(config.dataDir);
  const logger = createLogger(config, `lore-${definition.name}`);
  const transport = await openTransport(config, logger, 'distributed', `lore-${definition.name}`);
  // Connects on first read only (the webhook dispatcher's service reads it).
  const feed = openDistributedEventFeed(config, `lore-${definition.name}`);
  const host = new ContextHost(definition, { config, transport, feed, logger });
  const app = await NestFactory.createApplicationContext(LifecycleModule.forRoot([{ stop: () => telemetry.flush() }, { stop: () => transport.close() }, { stop: () => feed.close() }, host, metricsListener(config, logger)]), { logger: false });
  app.enableShutdownHooks();
  await app.init();
  logger.info({ service: definition.name }, 'service ready');
}
