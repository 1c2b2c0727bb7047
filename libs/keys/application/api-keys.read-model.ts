import type { ApiKeyRecord } from '@lore/keys/contracts';
import type { ApiKeyCreatedData } from '@lore/keys/domain';
import type { Unstamped } from '@lore/platform/projections';

/** The API key read model; `secret_verifier` never leaves the keys service. */
export interface ApiKeyDoc {
  readonly id: string;
  readonly workspace_id: string;
  readonly label: string;
  readonly status: 'active' | 'inactive' | 'revoked';
  readonly permissions: string[];
  readonly ip_whitelist: string[];
  readonly collections: string[];
  readonly created_by: string;
  /** Minted by an administrator's lineage; absent on documents projected before roles (false). */
  readonly acts_for_others?: boolean;
  /** The API key that created this one, or null when a user did. */
  readonly parent_key_id: string | null;
  readonly created_at: string;
  readonly updated_at: string;
  readonly expires_at: string | null;
  readonly secret_verifier: string;
  /** The stream revision it reflects (`evolveDocument`). */
  readonly revision: number;
  readonly [field: string]: unknown;
}

/** Last use is operational data, not history: kept beside the read model, not as events. */
export interface ApiKeyUsageDoc {
  readonly id: string;
  readonly last_used_at: string;
  readonly [field: string]: unknown;
}

export const API_KEYS = 'api_keys';
export const API_KEY_USAGE = 'api_key_usage';

/** The document of a newly created key: the projection's and the create reply's one source. */
export function newApiKeyDoc(d: ApiKeyCreatedData): Unstamped<ApiKeyDoc> {
  return {
    id: d.keyId,
    workspace_id: d.workspaceId,
    label: d.label,
    status: d.status,
    permissions: d.permissions,
    ip_whitelist: d.ipWhitelist,
    collections: d.collections,
    created_by: d.createdBy,
    acts_for_others: d.actsForOthers,
    parent_key_id: d.parentKeyId,
    created_at: d.createdAt,
    updated_at: d.createdAt,
    expires_at: d.expiresAt,
    secret_verifier: d.secretVerifier,
  };
}

export function toApiKeyRecord(doc: Unstamped<ApiKeyDoc>, lastUsedAt: string | null): ApiKeyRecord {
  return {
    id: doc.id,
    label: doc.label,
    workspace_id: doc.workspace_id,
    status: doc.status,
    permissions: doc.permissions,
    ip_whitelist: doc.ip_whitelist,
    collections: doc.collections,
    created_by: doc.created_by,
    acts_for_others: doc.acts_for_others === true,
    created_at: doc.created_at,
    updated_at: doc.updated_at,
    last_used_at: lastUsedAt,
    expires_at: doc.expires_at,
  };
}
