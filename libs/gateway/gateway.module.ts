import { Inject, Module, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';
import type { Transport } from '@lore/platform/transport/port';
import { LORE_CONFIG, TRANSPORT, type LoreConfig } from '@lore/platform/runtime';
import { configureGateway } from './gateway';

/** The HTTP edge as a Nest module: configures the Fastify instance Nest runs on. */
@Module({})
export class GatewayModule implements OnModuleInit {
  constructor(
    @Inject(HttpAdapterHost) private readonly adapterHost: HttpAdapterHost,
    @Inject(LORE_CONFIG) private readonly config: LoreConfig,
    @Inject(TRANSPORT) private readonly transport: Transport,
  ) {}

  onModuleInit(): void {
    const app = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    configureGateway(app, { config: this.config, transport: this.transport });
  }
}
