import { z } from 'zod';
import { defineMessage, isValidIpRule, isValidPermission, PERMISSION_RESOURCES } from '@lore/platform/kernel';
import { API_KEY_STATUSES, ApiKeyPrincipal, ApiKeyRecord, CreatedApiKey } from './keys.records';

export const apiKeyPermission = z.string().refine(isValidPermission, {
  message: `Unknown permission: use '*', or '<resource>:read|write|*' with resource one of ${PERMISSION_RESOURCES.join(', ')}`,
});
export const apiKeyIpRule = z.string().refine(isValidIpRule, { message: 'Must be an IPv4 or IPv6 address or CIDR range' });
export const apiKeyCollection = z.string().min(1).max(100);
export const apiKeyLabel = z.string().min(1).max(255);

/**
 * Who creates or revokes a key: a user (holding everything in the workspace; its role as the
 * gateway read it from the verified token) or an API key, whose grants and role the keys
 * service reads itself and never exceeds.
 */
const Grantor = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('user'), userId: z.string().min(1).max(255), role: z.enum(['admin', 'member']).default('member') }),
  z.object({ kind: z.literal('api_key'), keyId: z.string().min(1).max(100) }),
]);
export type ApiKeyGrantor = z.infer<typeof Grantor>;

const Scope = z.object({ workspaceId: z.string().min(1).max(255), actor: z.string().min(1).max(300) });
const KeyRef = Scope.extend({ keyId: z.string().min(1).max(100) });

export const keysMessages = {
  /** Omitted `permissions`, `collections`, `ipWhitelist`, `expiresAt` are inherited from an API-key grantor. */
  create: defineMessage(
    'keys.command.create',
    Scope.extend({
      grantor: Grantor,
      label: apiKeyLabel,
      status: z.enum(['active', 'inactive']).default('active'),
      expiresAt: z.iso.datetime({ offset: true }).nullish(),
      permissions: z.array(apiKeyPermission).max(100).optional(),
      ipWhitelist: z.array(apiKeyIpRule).max(100).optional(),
      collections: z.array(apiKeyCollection).max(1000).optional(),
    }),
    CreatedApiKey,
  ),
  /** Revokes the key and every key it created, before answering. */
  revoke: defineMessage('keys.command.revoke', KeyRef.extend({ grantor: Grantor }), ApiKeyRecord),
  get: defineMessage('keys.query.get', KeyRef, ApiKeyRecord),
  list: defineMessage(
    'keys.query.list',
    Scope.extend({
      status: z.enum(API_KEY_STATUSES).optional(),
      skip: z.number().int().min(0).default(0),
      limit: z.number().int().min(1).max(1000).default(100),
    }),
    z.object({ items: z.array(ApiKeyRecord), total: z.number().int() }),
  ),
  authenticate: defineMessage('keys.query.authenticate', z.object({ token: z.string().min(1).max(1000) }), ApiKeyPrincipal),
};
export type KeysMessages = typeof keysMessages;
