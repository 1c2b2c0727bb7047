import { Module, type DynamicModule, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';

/** Something a process starts and stops: a hosted context, a transport. */
export interface Lifecycle {
  start?(): Promise<void>;
  stop(): Promise<void>;
}

class Lifecycles implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(private readonly parts: readonly Lifecycle[]) {}

  async onApplicationBootstrap(): Promise<void> {
    for (const part of this.parts) await part.start?.();
  }

  /** In reverse: what started last stops first (contexts before the transport they serve on). */
  async onApplicationShutdown(): Promise<void> {
    for (const part of [...this.parts].reverse()) await part.stop();
  }
}

/** Ties the process's parts to the Nest application's start and shutdown hooks. */
@Module({})
export class LifecycleModule {
  static forRoot(parts: readonly Lifecycle[]): DynamicModule {
    return { module: LifecycleModule, providers: [{ provide: Lifecycles, useFactory: () => new Lifecycles(parts) }] };
  }
}
