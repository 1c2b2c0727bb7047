import { ADMIN_RESOURCES, AppError, invalid, permits, type PermissionAction, type PermissionResource } from '@lore/platform/kernel';
import type { Caller, RequestScope } from './http-route';

/** Who acts, in which workspace, for which owning user: what every owned record's message carries. */
export interface ActingOwner {
  readonly workspaceId: string;
  readonly actor: string;
  readonly userId: string;
}

/** An owner bound, in addition, to an API key's `collections` (null: every collection of the workspace). */
export interface BoundActingOwner extends ActingOwner {
  readonly collections: string[] | null;
}

export interface ActingOptions {
  /**
   * An API key is no user: where the API asks for an owner (memories, SPEC §4.8) a key must
   * name one, else 422 at `user_id` (wherever the route takes it: body or query).
   */
  readonly keyMustName?: boolean;
  /** Also carry the key's collection bound, for contexts that search collections (knowledge, conversations). */
  readonly collections?: boolean;
}

/**
 * The one rule of who may act for whom (ARCHITECTURE §6, Roles), for every context: records
 * with an owning `user_id` (memories, conversations, messages, context, connections) name the
 * user acted for; workspace-wide ones (webhooks, knowledge) pass none and act for the caller.
 *
 * | caller                          | names no user_id | names another user_id |
 * |---------------------------------|------------------|-----------------------|
 * | member JWT                      | its `sub`        | 403                   |
 * | administrator JWT               | its `sub`        | that user             |
 * | key minted by an administrator  | its creator      | that user             |
 * | key minted by a member          | its creator      | 403                   |
 *
 * Naming oneself (a JWT's `sub`, a key's creator) is always allowed. Keys made by keys carry
 * the creating user, and the right to act for others, of their lineage's first key.
 */
export function actingOwner(scope: RequestScope, userId?: string | null, options?: ActingOptions & { readonly collections?: false }): ActingOwner;
export function actingOwner(scope: RequestScope, userId: string | null | undefined, options: ActingOptions & { readonly collections: true }): BoundActingOwner;
export function actingOwner(scope: RequestScope, userId?: string | null, options: ActingOptions = {}): ActingOwner | BoundActingOwner {
  const named = userId === undefined || userId === null || userId === '' ? undefined : userId;
  // Located in the message's terms: the gateway maps it to the route's `user_id` (body or query).
  if (named === undefined && options.keyMustName === true && scope.caller.kind === 'api_key') throw invalid(['message', 'userId'], 'Field required', 'missing');
  const self = ownUser(scope.caller);
  if (named !== undefined && named !== self && !actsForOthers(scope.caller)) throw new AppError('forbidden', refusal(scope.caller));
  const owner = { workspaceId: scope.workspaceId, actor: scope.actor, userId: named ?? self };
  return options.collections === true ? { ...owner, collections: keyCollections(scope.caller) } : owner;
}

/** The collections an API key is limited to (null: every collection of the workspace, as for a JWT). */
export function keyCollections(caller: Caller): string[] | null {
  return caller.kind === 'api_key' && caller.collections.length > 0 ? [...caller.collections] : null;
}

/** Whether the caller holds a permission: a JWT user holds every one in its workspaces; an API key those it was granted. */
export function holdsPermission(caller: Caller, resource: PermissionResource, action: PermissionAction): boolean {
  return caller.kind === 'user' || permits(caller.permissions, resource, action);
}

/** Whether the caller may act for users other than itself: an administrator JWT, or a key an administrator minted. */
export function actsForOthers(caller: Caller): boolean {
  return caller.kind === 'user' ? caller.role === 'admin' : caller.actsForOthers;
}

/** The user a caller acts for when it names none: a JWT's `sub`, a key's creator. */
export function ownUser(caller: Caller): string {
  return caller.kind === 'user' ? caller.userId : caller.createdBy;
}

/**
 * Whether the caller holds administrator rights, which admin resources (`admin:*`) need on
 * top of the permission itself: a member's key never has them, whatever it was granted.
 */
export function mayUseResource(caller: Caller, resource: PermissionResource): boolean {
  return !ADMIN_RESOURCES.includes(resource) || actsForOthers(caller);
}

function refusal(caller: Caller): string {
  if (caller.kind === 'user') return 'user_id must be the authenticated user: only a workspace administrator may act for another user';
  return 'This API key acts only for the user who created it: only keys minted by a workspace administrator may name another user_id';
}
