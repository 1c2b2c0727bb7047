import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { createLogger, loadConfig, openTransport, type LoreConfig } from '@lore/platform/runtime';
import { GatewayErrorFilter, gatewayServerOptions } from '@lore/gateway';
import { StandaloneModule } from './standalone.module';

/** Starts the standalone app; tests call this with their own environment. */
export async function startStandalone(env: NodeJS.ProcessEnv = process.env): Promise<{ app: NestFastifyApplication; config: LoreConfig; url: string }> {
  const config = loadConfig(env);
  const logger = createLogger(config, 'lore');
  const transport = await openTransport(config, logger, 'standalone', 'lore');
  const app = await NestFactory.create<NestFastifyApplication>(
    StandaloneModule.register({ config, logger, transport }),
    new FastifyAdapter(gatewayServerOptions(config, logger)),
    { logger: false, abortOnError: false },
  );
  app.useGlobalFilters(new GatewayErrorFilter());
  app.enableShutdownHooks();
  await app.listen({ port: config.port, host: config.host });
  const address = app.getHttpServer().address();
  const port = typeof address === 'object' && address !== null ? address.port : config.port;
  logger.info({ port, dataDir: config.dataDir }, 'Lore standalone listening');
  return { app, config, url: `http://127.0.0.1:${port}` };
}
