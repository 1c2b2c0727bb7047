/**
 * Permission vocabulary (ARCHITECTURE §4): `<resource>:read`, `<resource>:write`,
 * `<resource>:*` or `*`. `write` does not imply `read`: a key gets exactly what it lists.
 * `admin`: operating the workspace's processing (list and retry its parked events).
 */
export const PERMISSION_RESOURCES = ['api_keys', 'collections', 'connections', 'conversations', 'memories', 'events', 'admin'] as const;
export type PermissionResource = (typeof PERMISSION_RESOURCES)[number];
export type PermissionAction = 'read' | 'write';

const VALID = new Set<string>(['*', ...PERMISSION_RESOURCES.flatMap((r) => [`${r}:read`, `${r}:write`, `${r}:*`])]);

export function isValidPermission(permission: string): boolean {
  return VALID.has(permission);
}

/**
 * Operator resources: only a workspace administrator, or an API key an administrator minted,
 * may use them. `*` granted by a member covers everything else (the key cannot use them).
 */
export const ADMIN_RESOURCES: readonly PermissionResource[] = ['admin'];

/** Whether a permission string names an admin resource (`admin:read`, `admin:*`, …), `*` excluded. */
export function grantsAdminResource(permission: string): boolean {
  return ADMIN_RESOURCES.some((resource) => permission.startsWith(`${resource}:`));
}

/** Whether the granted list allows one action on one resource. */
export function permits(granted: readonly string[], resource: PermissionResource, action: PermissionAction): boolean {
  return granted.includes('*') || granted.includes(`${resource}:*`) || granted.includes(`${resource}:${action}`);
}

/** Whether a holder of `granted` may hand out `requested` (it must hold everything the requested one allows). */
export function covers(granted: readonly string[], requested: string): boolean {
  if (granted.includes('*')) return true;
  if (requested === '*') return false;
  const [resource, action] = requested.split(':') as [PermissionResource, string];
  if (action === '*') return granted.includes(`${resource}:*`);
  return permits(granted, resource, action as PermissionAction);
}
