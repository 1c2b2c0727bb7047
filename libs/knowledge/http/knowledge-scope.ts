import { keyCollections, type RequestScope } from '@lore/platform/http';
import type { KnowledgeScope } from '@lore/knowledge/contracts';

/**
 * The caller as the knowledge service sees it: knowledge is workspace-wide (no owning user, so
 * no `actingOwner`), bounded by an API key's `collections` (the platform's `keyCollections`).
 */
export function knowledgeScope(scope: RequestScope): KnowledgeScope {
  return { workspaceId: scope.workspaceId, actor: scope.actor, collections: keyCollections(scope.caller) };
}
