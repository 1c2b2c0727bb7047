import { AppError } from '@lore/platform/kernel';
import type { RequestScope } from './http-route';

/** Who acts, in which workspace, for which owning user: what every owned record's message carries. */
export interface ActingOwner {
  readonly workspaceId: string;
  readonly actor: string;
  readonly userId: string;
}

/**
 * Whose records a request touches (ownership as for memories, SPEC §5.4): a JWT caller is its
 * `sub`, and naming another user is 403; an API-key caller acts for the `user_id` it names,
 * or, naming none, for the user who created the key (keys made by keys carry the creating
 * user of their lineage's first key).
 */
export function actingOwner(scope: RequestScope, userId: string | null | undefined): ActingOwner {
  const base = { workspaceId: scope.workspaceId, actor: scope.actor };
  if (scope.caller.kind === 'user') {
    if (userId !== undefined && userId !== null && userId !== scope.caller.userId) throw new AppError('forbidden', 'user_id must be the authenticated user');
    return { ...base, userId: scope.caller.userId };
  }
  if (userId !== undefined && userId !== null && userId !== '') return { ...base, userId };
  return { ...base, userId: scope.caller.createdBy };
}
