import { z } from 'zod';
import { isValidPermission, PERMISSION_RESOURCES } from './permissions';
import { isValidIpRule } from './ip-rules';

export const API_KEY_STATUSES = ['active', 'inactive', 'revoked'] as const;

const permission = z.string().refine(isValidPermission, {
  message: `Unknown permission: use '*', or '<resource>:read|write|*' with resource one of ${PERMISSION_RESOURCES.join(', ')}`,
});
const ipRule = z.string().refine(isValidIpRule, { message: 'Must be an IPv4 or IPv6 address or CIDR range' });

export const CreateApiKeyBody = z.object({
  label: z.string().min(1).max(255),
  status: z.enum(['active', 'inactive']).default('active'),
  expires_at: z.iso.datetime({ offset: true }).nullish().describe('Must lie in the future; null or absent: never expires'),
  permissions: z.array(permission).max(100).optional().describe("Absent: the creator's own permissions"),
  ip_whitelist: z.array(ipRule).max(100).optional().describe('Absent or empty: any address'),
  collections: z.array(z.string().min(1).max(100)).max(1000).optional().describe("Absent: the creator's own collections (empty = all)"),
});
export type CreateApiKeyBody = z.infer<typeof CreateApiKeyBody>;

export const ApiKeyRecord = z
  .object({
    id: z.string(),
    label: z.string(),
    workspace_id: z.string(),
    status: z.enum(API_KEY_STATUSES),
    permissions: z.array(z.string()),
    ip_whitelist: z.array(z.string()),
    collections: z.array(z.string()),
    created_by: z.string(),
    created_at: z.string(),
    updated_at: z.string(),
    last_used_at: z.string().nullable(),
    expires_at: z.string().nullable(),
  })
  .meta({ id: 'ApiKeyRecord' });
export type ApiKeyRecord = z.infer<typeof ApiKeyRecord>;

/** Returned once, by creation: the only time the secret exists outside the caller. */
export const CreatedApiKey = ApiKeyRecord.extend({
  key: z.string().describe('The full bearer token: send it as `Authorization: Bearer <key>`'),
  secret: z.string(),
  hashed_secret: z.string().describe('SHA-256 of the secret, hex'),
}).meta({ id: 'CreatedApiKey' });
export type CreatedApiKey = z.infer<typeof CreatedApiKey>;

export const ApiKeyIdParams = z.object({ key_id: z.string().min(1).max(50) });
