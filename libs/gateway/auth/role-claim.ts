import type { JWTPayload } from 'jose';
import type { WorkspaceRole } from '@lore/platform/http';

/** Where a token says its holder is a workspace administrator (AUTH_ADMIN_CLAIM, AUTH_ADMIN_VALUE). */
export interface RoleClaimSettings {
  /** A claim name or a dotted path into nested objects, e.g. `roles` or `realm_access.roles` (Keycloak). */
  readonly adminClaim: string;
  readonly adminValue: string;
}

export const DEFAULT_ROLE_CLAIM: RoleClaimSettings = { adminClaim: 'roles', adminValue: 'admin' };

/**
 * The role a verified token gives its holder: `admin` when the claim at the path is the admin
 * value or an array containing it, else `member` (a missing or oddly shaped claim grants
 * nothing). The role holds in every workspace the token names (`workspace_id`, `workspaces`):
 * an identity provider that makes someone admin of one workspace only issues a token naming
 * that workspace.
 */
export function roleOf(claims: JWTPayload, settings: RoleClaimSettings): WorkspaceRole {
  let value: unknown = claims;
  for (const segment of settings.adminClaim.split('.')) {
    if (typeof value !== 'object' || value === null || Array.isArray(value) || !Object.hasOwn(value, segment)) return 'member';
    value = (value as Record<string, unknown>)[segment];
  }
  const granted = Array.isArray(value) ? value.includes(settings.adminValue) : value === settings.adminValue;
  return granted ? 'admin' : 'member';
}
