import type { ConnectionRecord, CredentialSummary } from '@lore/connections/contracts';

/** A connection as lists and gets read it: no secret (credentials live sealed in their own streams). */
export interface ConnectionDoc {
  readonly id: string;
  readonly workspace_id: string;
  readonly user_id: string;
  readonly created_by: string;
  readonly integration: string;
  readonly integration_type: ConnectionRecord['integration_type'];
  readonly auth_method_id: string;
  readonly label: string;
  readonly config: Record<string, unknown>;
  readonly credential_id: string | null;
  readonly status: ConnectionRecord['status'];
  readonly status_reason: string | null;
  readonly last_tested_at: string | null;
  readonly created_at: string;
  readonly updated_at: string;
  /** The stream revision this document reflects (`evolveDocument`): older deliveries are skipped. */
  readonly revision: number;
  readonly [field: string]: unknown;
}

/** What may be shown of a credential: which fields are set and a hint; never a value, sealed or not. */
export interface CredentialDoc {
  readonly id: string;
  readonly workspace_id: string;
  readonly user_id: string;
  readonly integration: string;
  readonly auth_method_id: string;
  readonly fields_set: readonly string[];
  readonly hint: string | null;
  readonly version: number;
  /** The connections using it (ids only): the sweep finds credentials left behind by a crash. */
  readonly attached_to: readonly string[];
  /** When `attached_to` last changed: the sweep leaves alone what a request in flight may still be using. */
  readonly attached_at: string;
  readonly created_at: string;
  readonly updated_at: string;
  readonly revision: number;
  readonly [field: string]: unknown;
}

export const CONNECTIONS = 'connections';
export const CREDENTIALS = 'credentials';

export function toCredentialSummary(doc: CredentialDoc): CredentialSummary {
  return { id: doc.id, auth_method_id: doc.auth_method_id, fields_set: [...doc.fields_set], hint: doc.hint, version: doc.version, updated_at: doc.updated_at };
}

export function toConnectionRecord(doc: ConnectionDoc, credential: CredentialDoc | null): ConnectionRecord {
  return {
    id: doc.id,
    integration: doc.integration,
    integration_type: doc.integration_type,
    label: doc.label,
    config: doc.config,
    credential_id: doc.credential_id,
    user_id: doc.user_id,
    workspace_id: doc.workspace_id,
    created_by: doc.created_by,
    status: doc.status,
    auth_method_id: doc.auth_method_id,
    status_reason: doc.status_reason,
    last_tested_at: doc.last_tested_at,
    credential: credential === null ? null : toCredentialSummary(credential),
    created_at: doc.created_at,
    updated_at: doc.updated_at,
  };
}
