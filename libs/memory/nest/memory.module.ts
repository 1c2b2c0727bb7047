import { Module, type DynamicModule } from '@nestjs/common';
import { contextModule } from '@lore/platform/runtime';
import { MemoryService } from '@lore/memory/application';

/** Hosts the memory context: its stores, projections and message handlers. */
@Module({})
export class MemoryModule {
  static register(): DynamicModule {
    return contextModule(MemoryModule, 'memory', (deps) => new MemoryService({ ...deps, readYourWritesTimeoutMs: deps.config.readYourWritesTimeoutMs }));
  }
}
