import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { createLogger, LifecycleModule, loadConfig, openDistributedEventFeed, openDistributedRateBuckets, openTransport, startTelemetry } from '@lore/platform/runtime';
import { GatewayErrorFilter, GatewayModule, gatewayServerOptions } from '@lore/gateway';
import { loadMasterKey, masterKeyGeneratedMessage } from '@lore/platform/kernel';
import { composeEdges } from '../contexts';

/**
 * The gateway alone: HTTP in, typed messages out over NATS. No store is opened here; the master
 * key is read only to derive the key SSE event ids are sealed with (the same on every gateway).
 */
async function main(): Promise<void> {
  const telemetry = startTelemetry('lore-gateway');
  const config = loadConfig();
  const logger = createLogger(config, 'lore-gateway');
  const eventIdSecret = loadMasterKey({ value: config.masterKey, dataDir: config.dataDir, onGenerated: (file) => logger.warn(masterKeyGeneratedMessage(file)) });
  const transport = await openTransport(config, logger, 'distributed', 'lore-gateway');
  const feed = openDistributedEventFeed(config, 'lore-gateway');
  // Rate limits hold across every gateway process: their buckets live on the NATS.
  const rateBuckets = openDistributedRateBuckets(config, 'lore-gateway');
  @Module({
    imports: [
      LifecycleModule.forRoot([{ stop: () => telemetry.flush() }, { stop: () => rateBuckets.close() }, { stop: () => feed.close() }, { stop: () => transport.close() }]),
      GatewayModule.forRoot({ config, transport, feed, edges: composeEdges(), eventIdSecret, rateBuckets }),
    ],
  })
  class GatewayAppModule {}
  const app = await NestFactory.create<NestFastifyApplication>(GatewayAppModule, new FastifyAdapter(gatewayServerOptions(config, logger)), { logger: false });
  app.useGlobalFilters(new GatewayErrorFilter());
  app.enableShutdownHooks();
  await app.listen({ port: config.port, host: config.host });
  logger.info({ port: config.port }, 'gateway listening');
}

main().catch((error: unknown) => {
  process.stderr.write(`gateway failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
