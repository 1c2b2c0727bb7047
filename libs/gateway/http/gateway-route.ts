import type { z } from 'zod';
import type { RouteSpec } from '@lore/platform/http';
import type { Permission } from '../auth/access';
import type { RequestScope } from '../auth/caller';

export interface RouteInput<P, Q, B> {
  readonly params: P;
  readonly query: Q;
  readonly body: B;
  readonly scope: RequestScope;
}

/**
 * An HTTP operation: its described shape (RouteSpec, also the OpenAPI source), the
 * permission it needs, and what it does, usually one transport request.
 */
export interface GatewayRoute<P = unknown, Q = unknown, B = unknown> extends RouteSpec {
  readonly permission: Permission | null;
  readonly handle: (input: RouteInput<P, Q, B>) => Promise<unknown>;
}

/** Typed constructor: infers params/query/body types from the zod schemas. */
export function route<
  PS extends z.ZodObject | undefined = undefined,
  QS extends z.ZodObject | undefined = undefined,
  BS extends z.ZodType | undefined = undefined,
>(
  spec: Omit<RouteSpec, 'params' | 'query' | 'body'> & {
    readonly params?: PS;
    readonly query?: QS;
    readonly body?: BS;
    readonly permission: Permission | null;
    readonly handle: (input: RouteInput<Infer<PS>, Infer<QS>, Infer<BS>>) => Promise<unknown>;
  },
): GatewayRoute {
  return spec as unknown as GatewayRoute;
}

type Infer<S> = S extends z.ZodType ? z.output<S> : undefined;
