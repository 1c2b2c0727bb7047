import { ADMIN_RESOURCES, AppError, type PermissionResource } from '@lore/platform/kernel';
import type { Caller, RequestScope } from './http-route';

/** Who acts, in which workspace, for which owning user: what every owned record's message carries. */
export interface ActingOwner {
  readonly workspaceId: string;
  readonly actor: string;
  readonly userId: string;
}

/**
 * The one rule of who may act for whom (ARCHITECTURE §6, Roles), for every record that has
 * an owning `user_id` (memories, conversations, messages, context, connections, webhooks):
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
export function actingOwner(scope: RequestScope, userId: string | null | undefined, options: { readonly required?: 'body' | 'query' } = {}): ActingOwner {
  const named = userId === undefined || userId === null || userId === '' ? undefined : userId;
  if (named === undefined && options.required !== undefined && scope.caller.kind === 'api_key') {
    // An API key is no user: where the API asks for an owner (memories, SPEC §4.8) it must name one.
    throw new AppError('validation', 'user_id is required', [{ loc: [options.required, 'user_id'], msg: 'Field required', type: 'missing' }]);
  }
  const self = ownUser(scope.caller);
  if (named !== undefined && named !== self && !actsForOthers(scope.caller)) throw new AppError('forbidden', refusal(scope.caller));
  return { workspaceId: scope.workspaceId, actor: scope.actor, userId: named ?? self };
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
