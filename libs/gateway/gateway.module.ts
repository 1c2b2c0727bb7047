import { Inject, Module, type DynamicModule, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';
import { configureGateway, type GatewayOptions } from './gateway';

const GATEWAY_OPTIONS = 'lore:gateway-options';

/** The HTTP edge as a Nest module: configures the Fastify instance Nest runs on. */
@Module({})
export class GatewayModule implements OnModuleInit {
  constructor(
    @Inject(HttpAdapterHost) private readonly adapterHost: HttpAdapterHost,
    @Inject(GATEWAY_OPTIONS) private readonly options: GatewayOptions,
  ) {}

  static forRoot(options: GatewayOptions): DynamicModule {
    return { module: GatewayModule, providers: [{ provide: GATEWAY_OPTIONS, useValue: options }] };
  }

  onModuleInit(): void {
    configureGateway(this.adapterHost.httpAdapter.getInstance<FastifyInstance>(), this.options);
  }
}
