import { Global, Module, type DynamicModule, type OnApplicationShutdown } from '@nestjs/common';
import type { Logger } from 'pino';
import type { Transport } from '@lore/platform/transport/port';
import type { LoreConfig } from './config';
import { LORE_CONFIG, LOGGER, TRANSPORT } from './tokens';

class TransportCloser implements OnApplicationShutdown {
  constructor(private readonly transport: Transport) {}
  async onApplicationShutdown(): Promise<void> {
    await this.transport.close();
  }
}

/** Configuration, logger and transport, made once by the process entry point and shared with every module. */
@Global()
@Module({})
export class PlatformModule {
  static forRoot(values: { config: LoreConfig; logger: Logger; transport: Transport }): DynamicModule {
    return {
      module: PlatformModule,
      providers: [
        { provide: LORE_CONFIG, useValue: values.config },
        { provide: LOGGER, useValue: values.logger },
        { provide: TRANSPORT, useValue: values.transport },
        { provide: TransportCloser, useFactory: () => new TransportCloser(values.transport) },
      ],
      exports: [LORE_CONFIG, LOGGER, TRANSPORT],
    };
  }
}
