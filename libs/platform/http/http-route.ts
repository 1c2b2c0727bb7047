import type { z } from 'zod';
import type { Message, PermissionAction, PermissionResource, ReplyOf, RequestOf } from '@lore/platform/kernel';
import type { AcceptedReply, EventStreamReply, FileReply, IssueLocations, RedirectReply, RouteSpec, TextReply } from './route-spec';
import type { IntegrationEventsSpec } from './asyncapi';

export type Permission = readonly [PermissionResource, PermissionAction];

/**
 * A JWT caller's role in the workspaces its token names (the admin claim, AUTH_ADMIN_CLAIM):
 * an administrator may act for any user of those workspaces; a member only for itself.
 */
export type WorkspaceRole = 'admin' | 'member';

/** Who is calling, as proven by the bearer credential. */
export type Caller =
  | {
      readonly kind: 'user';
      readonly userId: string;
      readonly role: WorkspaceRole;
      /** The token's `workspace_id` claim: the workspace used when X-Workspace-Id is absent. */
      readonly defaultWorkspace: string | undefined;
      /** Every workspace the token may use: `workspace_id` plus the `workspaces` claim. */
      readonly workspaces: ReadonlySet<string>;
    }
  | {
      readonly kind: 'api_key';
      readonly keyId: string;
      readonly workspaceId: string;
      readonly createdBy: string;
      /**
       * Minted by an administrator (or by a key that was): acts for any `user_id` it names and
       * may use admin permissions. Otherwise it acts only for `createdBy`.
       */
      readonly actsForOthers: boolean;
      readonly permissions: readonly string[];
      readonly ipWhitelist: readonly string[];
      readonly collections: readonly string[];
    };

/** A caller bound to the workspace a request acts in. */
export interface RequestScope {
  readonly caller: Caller;
  readonly workspaceId: string;
  /** `user:<sub>` or `api_key:<id>`, recorded with every event. */
  readonly actor: string;
  readonly requestId: string;
}

/** Sends a context's typed message for this request (the gateway binds transport and request id). */
export type Send = <M extends Message>(message: M, request: RequestOf<M>) => Promise<ReplyOf<M>>;

/** A file sent as multipart/form-data, with the text fields sent beside it. */
export interface Upload<F = Record<string, unknown>> {
  readonly file: { readonly filename: string; readonly mimeType: string; readonly bytes: Buffer };
  readonly fields: F;
}

export interface RouteInput<P, Q, B, U = Record<string, unknown>> {
  readonly params: P;
  readonly query: Q;
  /** The JSON body; undefined when the request was an upload. */
  readonly body: B;
  /** Set when the request was multipart/form-data (routes with `upload` only). */
  readonly upload: Upload<U> | null;
  /** The authenticated scope; routes with `auth: false` never read it. */
  readonly scope: RequestScope;
  readonly send: Send;
}

/**
 * An HTTP operation: its described shape (RouteSpec, also the OpenAPI source), the
 * permission it needs, and what it does: usually one typed message, its reply shaped for HTTP.
 */
export interface HttpRoute<P = unknown, Q = unknown, B = unknown> extends RouteSpec {
  readonly permission: Permission | null;
  readonly handle: (input: RouteInput<P, Q, B>) => Promise<unknown>;
}

type Infer<S> = S extends z.ZodType ? z.output<S> : undefined;

/**
 * What a handler may return: what its `response` schema describes (the schema's input: the
 * gateway serialises it as is), or the same as an `AcceptedReply` (202, for a route declaring
 * `accepted`), or, for a route declaring `textResponses`, a non-JSON body.
 * A route thus cannot return, at compile time, a shape its OpenAPI document does not show;
 * with LORE_CHECK_REPLIES (on in tests) the gateway also parses every reply with the schema.
 */
export type RouteReply<RS extends z.ZodType, TR extends readonly string[] | undefined> =
  | z.input<RS>
  | (TR extends readonly string[] ? TextReply | EventStreamReply | FileReply : never)
  | AcceptedReply<z.input<RS>>
  | RedirectReply;

/** Typed constructor: infers params/query/body types from the zod schemas, and the reply from `response`. */
export function route<
  PS extends z.ZodObject | undefined = undefined,
  QS extends z.ZodObject | undefined = undefined,
  BS extends z.ZodType | undefined = undefined,
  US extends z.ZodObject | undefined = undefined,
  RS extends z.ZodType = z.ZodType,
  const TR extends readonly string[] | undefined = undefined,
>(
  spec: Omit<RouteSpec, 'params' | 'query' | 'body' | 'upload' | 'response' | 'textResponses'> & {
    readonly params?: PS;
    readonly query?: QS;
    readonly body?: BS;
    readonly upload?: { readonly fields: NonNullable<US>; readonly maxBytes: number; readonly issueLocations?: IssueLocations };
    readonly response: RS;
    readonly textResponses?: TR;
    readonly permission: Permission | null;
    readonly handle: (
      input: RouteInput<Infer<PS>, Infer<QS>, Infer<BS> | (US extends z.ZodObject ? undefined : never), Infer<US>>,
    ) => Promise<RouteReply<RS, TR>>;
  },
): HttpRoute {
  // The handler's input is parsed with exactly these schemas before it runs (the gateway's
  // registration), which is what makes the narrowing below sound.
  return spec as unknown as HttpRoute;
}

/**
 * The edge half of a context (`libs/<context>/http`): its routes, built from the same
 * configuration slice its service reads. The gateway composes every context's edge.
 */
export interface HttpEdge<Config = unknown> {
  readonly name: string;
  readonly config: z.ZodType<Config>;
  readonly routes: (config: Config, deps: EdgeDeps) => readonly HttpRoute[];
  /**
   * The integration events the context publishes (its contracts' schemas, described for
   * `/asyncapi.json`). Static: unlike routes they do not depend on configuration.
   */
  readonly events?: readonly IntegrationEventsSpec[];
}

/** What an edge's routes may use besides their configuration. */
export interface EdgeDeps {
  /** The serving process's logger, for what no response tells (a file reader that crashed). */
  readonly log: { warn(details: Record<string, unknown>, message: string): void };
}

export function defineEdge<Config>(edge: HttpEdge<Config>): HttpEdge<Config> {
  return edge;
}
