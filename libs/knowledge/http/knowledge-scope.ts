import type { RequestScope } from '@lore/platform/http';
import type { KnowledgeScope } from '@lore/knowledge/contracts';

/** The caller as the knowledge service sees it: an API key's `collections` bound it (empty: every collection). */
export function knowledgeScope(scope: RequestScope): KnowledgeScope {
  const collections = scope.caller.kind === 'api_key' && scope.caller.collections.length > 0 ? [...scope.caller.collections] : null;
  return { workspaceId: scope.workspaceId, actor: scope.actor, collections };
}
