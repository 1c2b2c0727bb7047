import { Module, type DynamicModule } from '@nestjs/common';
import type { Logger } from 'pino';
import type { Transport } from '@lore/platform/transport/port';
import { PlatformModule, type LoreConfig } from '@lore/platform/runtime';
import { GatewayModule } from '@lore/gateway';
import { KeysModule } from '@lore/keys/nest';
import { MemoryModule } from '@lore/memory/nest';

/** Everything in one process: the gateway and every context over the in-process transport. */
@Module({})
export class StandaloneModule {
  static register(values: { config: LoreConfig; logger: Logger; transport: Transport }): DynamicModule {
    return {
      module: StandaloneModule,
      imports: [PlatformModule.forRoot(values), KeysModule.register(), MemoryModule.register(), GatewayModule],
    };
  }
}
