import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { createLogger, installLeanAsyncResourceBind, LifecycleModule, loadConfig, openDistributedEventFeed, openDistributedRateBuckets, openTransport, startTelemetry, tierUpSooner } from '@lore/platform/runtime';
import { eventIdSecretGeneratedMessage, GatewayErrorFilter, GatewayModule, gatewayServerOptions, loadEventIdSecret } from '@lore/gateway';
import { composeEdges } from '../contexts';

/**
 * The gateway alone: HTTP in, typed messages out over NATS. No store is opened here and no
 * master key generated; DATA_DIR holds at most the secret SSE event ids are sealed with, when
 * neither LORE_EVENT_ID_SECRET nor LORE_MASTER_KEY gives one (see loadEventIdSecret).
 */
async function main(): Promise<void> {
  const telemetry = startTelemetry('lore-gateway');
  installLeanAsyncResourceBind(); // Fastify binds a callback per request body: see there
  tierUpSooner();
  const config = loadConfig();
  const logger = createLogger(config, 'lore-gateway');
  const eventIdSecret = loadEventIdSecret({ secret: config.eventIdSecret, masterKey: config.masterKey, dataDir: config.dataDir, onGenerated: (file) => logger.warn(eventIdSecretGeneratedMessage(file)) });
  const transport = await openTransport(config, logger, 'distributed', 'lore-gateway');
  const feed = openDistributedEventFeed(config, 'lore-gateway');
  // Rate limits hold across every gateway process: their buckets live on the NATS.
  const rateBuckets = openDistributedRateBuckets(config, 'lore-gateway');
  @Module({
    imports: [
      LifecycleModule.forRoot([{ stop: () => telemetry.flush() }, { stop: () => rateBuckets.close() }, { stop: () => feed.close() }, { stop: () => transport.close() }]),
      GatewayModule.forRoot({ config, transport, feed, edges: composeEdges({ log: logger }), eventIdSecret, rateBuckets }),
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
