import { AppError, permits, type PermissionResource } from '@lore/platform/kernel';
import type { RequestScope } from '@lore/platform/http';
import type { ConversationScope } from '@lore/conversations/contracts';

/**
 * Whose conversations a request touches (ownership as for memories, SPEC §5.4): a JWT caller
 * is its `sub`, and naming another user is 403; an API-key caller acts for the `user_id` it
 * names, or, naming none, for the user who created the key. An API key's `collections`
 * bound what the context endpoint searches.
 */
export function actingUser(scope: RequestScope, userId: string | null | undefined): ConversationScope {
  const base = { workspaceId: scope.workspaceId, actor: scope.actor };
  if (scope.caller.kind === 'user') {
    if (userId !== undefined && userId !== null && userId !== scope.caller.userId) throw new AppError('forbidden', 'user_id must be the authenticated user');
    return { ...base, userId: scope.caller.userId, collections: null };
  }
  const collections = scope.caller.collections.length > 0 ? [...scope.caller.collections] : null;
  if (userId !== undefined && userId !== null && userId !== '') return { ...base, userId, collections };
  // Keys made by keys carry the creating user of their lineage's first key.
  return { ...base, userId: scope.caller.createdBy, collections };
}

/** Whether the caller may read a resource outside conversations (a JWT user may; an API key needs the grant). */
export function mayRead(scope: RequestScope, resource: PermissionResource): boolean {
  return scope.caller.kind === 'user' || permits(scope.caller.permissions, resource, 'read');
}

/** Naming collections for a conversation to search takes the right to read them: 403 otherwise. */
export function mayNameCollections(scope: RequestScope, collectionIds: readonly string[] | null | undefined): void {
  if (collectionIds && collectionIds.length > 0 && !mayRead(scope, 'collections')) throw new AppError('forbidden', 'collection_ids need the permission collections:read');
}
