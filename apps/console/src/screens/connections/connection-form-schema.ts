import type { ErrorSchema, RJSFSchema, UiSchema } from '@rjsf/utils';
import type { Integration } from '@lore/client';
import { locatedIssues } from '../shared/api-issues';

type AuthMethod = Integration['auth_methods'][number];
type JsonObject = Record<string, unknown>;

/** What the connection form edits: a label, the entry's configuration and the auth method's credentials. */
export interface ConnectionFormData {
  label?: string;
  config?: JsonObject;
  credentials?: JsonObject;
}

export type FormMode = 'create' | 'edit';

/** The auth method by id, else the entry's default (what the API picks when none is sent). */
export function authMethodOf(entry: Integration, methodId: string | undefined): AuthMethod | undefined {
  return entry.auth_methods.find((m) => m.id === (methodId ?? entry.default_auth_method_id)) ?? entry.auth_methods[0];
}

/**
 * One JSON Schema for the whole form, built from the catalog entry itself (nothing per
 * integration is written here): `config` is the entry's `config_schema` plus the fields the
 * method requires of it (`required_config`, as the API checks), `credentials` the method's
 * `fields`. When editing, credentials are a rotation: left empty they are not sent, so the
 * group loses its `required` list (the API still checks a partial rotation and says which
 * field is missing).
 */
export function connectionFormSchema(entry: Integration, method: AuthMethod | undefined, mode: FormMode): RJSFSchema {
  const properties: JsonObject = {
    label: { type: 'string', title: 'Label', minLength: 1, maxLength: 255 },
    config: { ...withRequired(entry.config_schema, requiredConfig(method)), title: 'Configuration' },
  };
  if (method !== undefined && hasFields(method.fields)) {
    const fields = mode === 'edit' ? { ...method.fields, required: [] } : method.fields;
    properties['credentials'] = { ...fields, title: mode === 'edit' ? 'New credentials (leave empty to keep the stored ones)' : 'Credentials' };
  }
  return { type: 'object', required: ['label'], properties } as RJSFSchema;
}

/** Secret fields are password inputs that browsers do not fill or remember. */
export function connectionUiSchema(method: AuthMethod | undefined): UiSchema<ConnectionFormData> {
  const credentials: UiSchema = {};
  for (const field of method?.secret_fields ?? []) credentials[field] = { 'ui:widget': 'password', 'ui:autocomplete': 'new-password' };
  return { 'ui:submitButtonOptions': { norender: true }, credentials };
}

/** The request body the form's data becomes: empty credentials of an edit are left out (nothing to rotate). */
export function credentialsToSend(data: ConnectionFormData, mode: FormMode): JsonObject | undefined {
  const given = Object.entries(data.credentials ?? {}).filter(([, value]) => value !== undefined && value !== '');
  if (mode === 'edit' && given.length === 0) return undefined;
  return Object.fromEntries(given);
}

/**
 * The API's refusal placed on the fields it names (`config.base_url`, `credentials.token`,
 * `label`), for rjsf's `extraErrors`. Checks that name no field of the form stay in
 * `unplaced`, for the banner above the form.
 */
export function apiErrorsToFields(detail: unknown): { errors: ErrorSchema; unplaced: string[] } {
  const errors: ErrorSchema = {};
  const unplaced: string[] = [];
  for (const { path, message } of locatedIssues(detail)) {
    if (FORM_FIELDS.includes(path[0] ?? '')) addError(errors, path, message);
    else unplaced.push(path.length ? `${path.join('.')}: ${message}` : message);
  }
  return { errors, unplaced };
}

const FORM_FIELDS = ['label', 'config', 'credentials'];

function addError(errors: ErrorSchema, path: readonly string[], message: string): void {
  let node = errors as Record<string, unknown>;
  for (const part of path) node = (node[part] ??= {}) as Record<string, unknown>;
  ((node['__errors'] ??= []) as string[]).push(message);
}

function requiredConfig(method: AuthMethod | undefined): string[] {
  const value = (method as { required_config?: unknown } | undefined)?.required_config;
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

function withRequired(schema: JsonObject, extra: readonly string[]): JsonObject {
  if (extra.length === 0) return schema;
  const required = Array.isArray(schema['required']) ? (schema['required'] as string[]) : [];
  return { ...schema, required: [...new Set([...required, ...extra])] };
}

function hasFields(fields: JsonObject): boolean {
  const properties = fields['properties'];
  return typeof properties === 'object' && properties !== null && Object.keys(properties).length > 0;
}
