import { AppError, ipAllowed, permits } from '@lore/platform/kernel';
import { mayUseResource, type Caller, type Permission, type RequestScope } from '@lore/platform/http';

/**
 * Binds the caller to a workspace and checks what it may do there:
 * X-Workspace-Id must be one the credential may use (else 403); absent, the JWT's
 * `workspace_id` or the API key's own workspace applies. API keys are further bound to
 * their IP allow-list and their permissions; a JWT user may do everything in its workspaces.
 * Admin resources (`admin:*`) take administrator rights as well: a member's JWT, or a key a
 * member minted (even with `*`), is refused them.
 */
export function authorize(caller: Caller, options: {
  readonly workspaceHeader: string | undefined;
  readonly clientIp: string;
  readonly permission: Permission | null;
  readonly requestId: string;
}): RequestScope {
  const requested = options.workspaceHeader?.trim() || undefined;
  let workspaceId: string;
  if (caller.kind === 'user') {
    const chosen = requested ?? caller.defaultWorkspace;
    // Also what a token gets whose workspace_id is no usable id (over 255 characters, not text): say what counts.
    if (chosen === undefined) {
      throw new AppError('forbidden', 'No workspace: send X-Workspace-Id or use a token whose workspace_id claim is a workspace id (1 to 255 characters of valid text)');
    }
    if (!caller.workspaces.has(chosen)) throw new AppError('forbidden', `Not allowed to use workspace ${chosen}`);
    workspaceId = chosen;
  } else {
    if (requested !== undefined && requested !== caller.workspaceId) throw new AppError('forbidden', `This API key belongs to another workspace than ${requested}`);
    if (!ipAllowed(options.clientIp, caller.ipWhitelist)) throw new AppError('forbidden', 'This API key may not be used from this IP address');
    workspaceId = caller.workspaceId;
    if (options.permission !== null && !permits(caller.permissions, options.permission[0], options.permission[1])) {
      throw new AppError('forbidden', `This API key lacks the permission ${options.permission[0]}:${options.permission[1]}`);
    }
  }
  if (options.permission !== null && !mayUseResource(caller, options.permission[0])) {
    throw new AppError('forbidden', `${options.permission[0]}:${options.permission[1]} is for workspace administrators (or API keys an administrator minted)`);
  }
  const actor = caller.kind === 'user' ? `user:${caller.userId}` : `api_key:${caller.keyId}`;
  return { caller, workspaceId, actor, requestId: options.requestId };
}
