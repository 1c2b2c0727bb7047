import 'reflect-metadata';
import { Module, type DynamicModule } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { createLogger, openTransport } from './process';
import { loadConfig } from './config';
import { PlatformModule } from './platform.module';

/** Runs one context as its own process, serving its subjects over NATS until SIGTERM. */
export async function runServiceProcess(name: string, contextModule: DynamicModule): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config, `lore-${name}`);
  const transport = await openTransport(config, logger, 'distributed', `lore-${name}`);
  @Module({ imports: [PlatformModule.forRoot({ config, logger, transport }), contextModule] })
  class ServiceModule {}
  const app = await NestFactory.createApplicationContext(ServiceModule, { logger: false });
  app.enableShutdownHooks();
  await app.init();
  logger.info({ service: name }, 'service ready');
}
