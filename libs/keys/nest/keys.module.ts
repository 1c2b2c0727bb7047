import { Module, type DynamicModule } from '@nestjs/common';
import { contextModule } from '@lore/platform/runtime';
import { KeysService } from '@lore/keys/application';

/** Hosts the API keys context: its stores, projections and message handlers. */
@Module({})
export class KeysModule {
  static register(): DynamicModule {
    return contextModule(KeysModule, 'keys', (deps) => new KeysService({ ...deps, readYourWritesTimeoutMs: deps.config.readYourWritesTimeoutMs }));
  }
}
