import { type DynamicModule, type OnApplicationBootstrap, type OnApplicationShutdown, type Type } from '@nestjs/common';
import type { Logger } from 'pino';
import { systemClock, type Clock } from '@lore/platform/kernel';
import type { Transport, TransportSubscription } from '@lore/platform/transport/port';
import { serveRoutes, type MessageRoutes } from '@lore/platform/cqrs';
import type { ProjectionSet } from '@lore/platform/projections';
import type { LoreConfig } from './config';
import { openContextStores, type ContextStores } from './context-stores';
import { LORE_CONFIG, LOGGER, TRANSPORT } from './tokens';

/** What every context service offers its host. */
export interface ContextService {
  readonly projections: ProjectionSet;
  start(): Promise<void>;
  stop(): Promise<void>;
  routes(): MessageRoutes;
}

export interface ContextDeps extends ContextStores {
  readonly transport: Transport;
  readonly clock: Clock;
  readonly config: LoreConfig;
  readonly onProjectionError: (projection: string, error: unknown) => void;
}

/** Readiness of a context: its projections are live. Served on `<context>.query.status`. */
export const statusSubject = (context: string): string => `${context}.query.status`;
export interface ContextStatus {
  readonly ready: boolean;
  readonly projections: Record<string, string>;
}

/**
 * Hosts one context in a process: opens its stores, starts its projections, serves its
 * subjects on the transport; closes all of it on shutdown.
 */
export class ContextHost implements OnApplicationBootstrap, OnApplicationShutdown {
  private stores: ContextStores | null = null;
  private service: ContextService | null = null;
  private subscriptions: TransportSubscription[] = [];

  constructor(
    readonly context: string,
    private readonly build: (deps: ContextDeps) => ContextService,
    private readonly config: LoreConfig,
    private readonly transport: Transport,
    private readonly logger: Logger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.stores = await openContextStores(this.config, this.context);
    const log = this.logger.child({ context: this.context });
    this.service = this.build({
      ...this.stores,
      transport: this.transport,
      clock: systemClock,
      config: this.config,
      onProjectionError: (projection, error) => log.error({ projection, err: error }, 'projection failed'),
    });
    await this.service.start();
    const service = this.service;
    const routes: MessageRoutes = {
      ...service.routes(),
      [statusSubject(this.context)]: async (): Promise<ContextStatus> => ({ ready: service.projections.isReady(), projections: service.projections.status() }),
    };
    this.subscriptions = await serveRoutes(this.transport, this.wrapErrors(routes, log));
    log.info('context started');
  }

  async onApplicationShutdown(): Promise<void> {
    for (const subscription of this.subscriptions) await subscription.close();
    await this.service?.stop();
    await this.stores?.close();
  }

  /** The transport hides unexpected errors from callers; they are logged here, once, with the request id. */
  private wrapErrors(routes: MessageRoutes, log: Logger): MessageRoutes {
    return Object.fromEntries(
      Object.entries(routes).map(([subject, handler]) => [
        subject,
        async (payload: unknown, context: Parameters<typeof handler>[1]) => {
          try {
            return await handler(payload, context);
          } catch (error) {
            if (!(error instanceof Error && 'code' in error)) log.error({ subject, reqId: context.requestId, err: error }, 'handler failed');
            throw error;
          }
        },
      ]),
    );
  }
}

/** A Nest module hosting one context, for `libs/<context>/nest`. */
export function contextModule(module: Type, context: string, build: (deps: ContextDeps) => ContextService): DynamicModule {
  const token = `${context}:host`;
  return {
    module,
    providers: [
      {
        provide: token,
        inject: [LORE_CONFIG, TRANSPORT, LOGGER],
        useFactory: (config: LoreConfig, transport: Transport, logger: Logger) => new ContextHost(context, build, config, transport, logger),
      },
    ],
  };
}

