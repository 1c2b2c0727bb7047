import { notFound } from '@lore/platform/kernel';

/** Who acts: their workspace, and the collections an API key is limited to (null: all). */
export interface Access {
  readonly workspaceId: string;
  readonly collections: readonly string[] | null;
}

/**
 * The knowledge access rule, defined once: a collection, and everything in it, exists for a
 * caller only in its own workspace and only within its key's `collections`; anywhere else it
 * is "not found", never "forbidden", so ids never leak.
 */
export function mayAccess(access: Access, collection: { readonly workspaceId: string; readonly collectionId: string }): boolean {
  return collection.workspaceId === access.workspaceId && (access.collections === null || access.collections.includes(collection.collectionId));
}

export function assertAccess(access: Access, collection: { readonly workspaceId: string; readonly collectionId: string }, what: string): void {
  if (!mayAccess(access, collection)) throw notFound(what);
}
