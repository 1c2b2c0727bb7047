import { AppError, permits, type PermissionResource } from '@lore/platform/kernel';
import { actingOwner, type RequestScope } from '@lore/platform/http';
import type { ConversationScope } from '@lore/conversations/contracts';

/**
 * Whose conversations a request touches: the platform's owner rule (`actingOwner`); an API
 * key's `collections` bound what the context endpoint searches.
 */
export function actingUser(scope: RequestScope, userId: string | null | undefined): ConversationScope {
  const owner = actingOwner(scope, userId);
  const collections = scope.caller.kind === 'api_key' && scope.caller.collections.length > 0 ? [...scope.caller.collections] : null;
  return { ...owner, collections };
}

/** Whether the caller may read a resource outside conversations (a JWT user may; an API key needs the grant). */
export function mayRead(scope: RequestScope, resource: PermissionResource): boolean {
  return scope.caller.kind === 'user' || permits(scope.caller.permissions, resource, 'read');
}

/** Naming collections for a conversation to search takes the right to read them: 403 otherwise. */
export function mayNameCollections(scope: RequestScope, collectionIds: readonly string[] | null | undefined): void {
  if (collectionIds && collectionIds.length > 0 && !mayRead(scope, 'collections')) throw new AppError('forbidden', 'collection_ids need the permission collections:read');
}
