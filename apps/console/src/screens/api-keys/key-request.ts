import type { BodyOf } from '@lore/client';

/**
 * The resources a permission names (`<resource>:read|write`), as the API checks them
 * (PERMISSION_RESOURCES in libs/platform/kernel/permissions.ts; an unknown one is a 422).
 */
export const PERMISSION_RESOURCES = ['collections', 'memories', 'conversations', 'connections', 'events', 'api_keys', 'admin'] as const;
export const PERMISSION_ACTIONS = ['read', 'write'] as const;

/** The create form's fields as the inputs hold them (text and checkboxes). */
export interface KeyFormValues {
  label: string;
  permissions: ReadonlySet<string>;
  /** One collection id per line or comma-separated; empty: every collection. */
  collections: string;
  /** One IP address or CIDR range per line; empty: any address. */
  ipRules: string;
  /** A `datetime-local` value (the browser's local time); empty: no expiry. */
  expiresAt: string;
}

export const EMPTY_KEY_FORM: KeyFormValues = { label: '', permissions: new Set(), collections: '', ipRules: '', expiresAt: '' };

/** Splits a list typed one per line or with commas, dropping blanks. */
export function listOf(text: string): string[] {
  return text
    .split(/[\n,]/)
    .map((part) => part.trim())
    .filter((part) => part.length > 0);
}

/**
 * The `POST /api/v1/api-keys` body. Permissions, collections and IP rules are always sent
 * (an empty list means "none"/"all"/"any" as the API defines), so a console key never
 * silently inherits the signed-in caller's own set; the API checks every value and its 422
 * names the field (`permissions.2`, `ip_whitelist.0`).
 */
export function createKeyBody(values: KeyFormValues): BodyOf<'create_api_key'> {
  return {
    label: values.label.trim(),
    permissions: [...values.permissions],
    collections: listOf(values.collections),
    ip_whitelist: listOf(values.ipRules),
    ...(values.expiresAt === '' ? {} : { expires_at: new Date(values.expiresAt).toISOString() }),
  };
}
