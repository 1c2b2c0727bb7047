import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { createLogger, installLeanAsyncResourceBind, LifecycleModule, loadConfig, openTransport, startTelemetry, type LoreConfig } from '@lore/platform/runtime';
import { ContextHost, openEmbeddingModels, openRerankers } from '@lore/platform/host';
import { openEgress } from '@lore/platform/egress/node';
import { keepSqliteTempFilesIn } from '@lore/platform/sqlite';
import { journaledTransport, openEmbeddedEventFeed } from '@lore/platform/transport/sqlite-feed';
import { eventIdSecretGeneratedMessage, GatewayErrorFilter, GatewayModule, gatewayServerOptions, loadEventIdSecret } from '@lore/gateway';
import { CONTEXTS, composeEdges } from '../contexts';

/**
 * Everything in one process: the gateway and every registered context over the in-process
 * transport. Tests call this with their own environment.
 */
export async function startStandalone(env: NodeJS.ProcessEnv = process.env): Promise<{ app: NestFastifyApplication; config: LoreConfig; url: string }> {
  const telemetry = startTelemetry('lore', env);
  installLeanAsyncResourceBind(); // Fastify binds a callback per request body: see there
  const config = loadConfig(env);
  keepSqliteTempFilesIn(config.dataDir);
  const logger = createLogger(config, 'lore');
  // Integration events are kept in DATA_DIR as JetStream keeps them distributed: resumable by position.
  const feed = openEmbeddedEventFeed(config.dataDir, config.eventsStreamMaxAgeHours);
  const transport = journaledTransport(await openTransport(config, logger, 'standalone', 'lore'), feed);
  // One set of models for every context: one local model in memory, one query cache.
  const embeddings = openEmbeddingModels(env);
  // And one set of rerank providers (one local cross-encoder), calling out through the process's egress rules.
  const rerankers = openRerankers(openEgress({ allow: config.egressAllow, ...(config.egressProxyUrl === undefined ? {} : { proxyUrl: config.egressProxyUrl }) }), env);
  // The in-process transport ignores NATS_URL, so /asyncapi.json must not name a NATS server.
  const gatewayConfig = { ...config, natsUrl: undefined };
  // By the distributed gateway's rule: LORE_EVENT_ID_SECRET, else LORE_MASTER_KEY, else DATA_DIR/event-id.key
  // (not master.key: rotating the master key must not invalidate the ids clients saved).
  const eventIdSecret = loadEventIdSecret({ secret: config.eventIdSecret, masterKey: config.masterKey, dataDir: config.dataDir, onGenerated: (file) => logger.info(eventIdSecretGeneratedMessage(file)) });
  // One event loop serves HTTP and every context here: SQLite commits go to a writer thread (see SqliteEventStoreOptions.writerThread).
  const hosts = CONTEXTS.map(({ service }) => new ContextHost(service, { config, transport, feed, feedCheckpoints: feed, logger, env, embeddings, rerankers, eventStoreWriterThread: true }));
  @Module({
    imports: [LifecycleModule.forRoot([{ stop: () => telemetry.flush() }, { stop: () => embeddings.close() }, { stop: () => rerankers.close() }, { stop: () => feed.close() }, { stop: () => transport.close() }, ...hosts]), GatewayModule.forRoot({ config: gatewayConfig, transport, feed, edges: composeEdges({ log: logger }, env), eventIdSecret })],
  })
  class StandaloneModule {}
  const app = await NestFactory.create<NestFastifyApplication>(StandaloneModule, new FastifyAdapter(gatewayServerOptions(config, logger)), {
    logger: false,
    abortOnError: false,
  });
  app.useGlobalFilters(new GatewayErrorFilter());
  app.enableShutdownHooks();
  await app.listen({ port: config.port, host: config.host });
  const address = app.getHttpServer().address();
  const port = typeof address === 'object' && address !== null ? address.port : config.port;
  logger.info({ port, dataDir: config.dataDir }, 'Lore standalone listening');
  return { app, config, url: `http://127.0.0.1:${port}` };
}
