/**
 * Validation of a connection request against its catalog entry (SPEC §4.5, §2.3, §7).
 *
 * Pure: the only I/O is the injected `requestToken` (the OAuth 2.0 client_credentials probe),
 * and the clock comes in as `deps.now`. Every failed check becomes one human-readable string
 * naming the field by its path (`config.base_url: must be a valid URL (format uri)`); all
 * checks run, so one answer lists every problem (the `errors` array of SPEC §7's
 * connection-validation body).
 *
 * Field checks are the catalog's own JSON Schemas (`config_schema`, each method's `fields`)
 * run by Ajv (draft 2020-12, formats from ajv-formats); no field rule is written by hand here.
 * Defaults of those schemas are applied (on a copy) before the checks, so a required field
 * with a default (a port, a token type) may be left out.
 *
 * No message ever carries a submitted value: messages name fields and quote the schema's
 * constraints only, and, as a second guard, the values of the method's secret fields are
 * masked in every message (a token endpoint's error text could echo them).
 */
import Ajv2020 from 'ajv/dist/2020';
import type { ErrorObject, ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { IntegrationRecord, AuthMethod } from '@lore/connections/contracts';
import { fillTemplate, maskSecrets, secretValues } from '../verification/templates';
import { jwtExpiryMs } from '../verification/token-expiry';

type JsonObject = Record<string, unknown>;

export interface ConnectionValidationRequest {
  integration_type?: string;
  auth_method_id?: string | null;
  config?: Record<string, unknown>;
  credentials?: Record<string, unknown> | null;
  /** An existing credential is reused (`credential_id`): no credentials may be sent with it. */
  credential_provided?: boolean;
}

export interface TokenResponse {
  ok: boolean;
  status: number;
  error?: string;
}

export interface ConnectionValidationDeps {
  now: Date;
  /** POSTs the form to the token endpoint; answers how it went. Throws when it cannot be reached. */
  requestToken?: (tokenUrl: string, form: Record<string, string>) => Promise<TokenResponse>;
}

export interface ConnectionValidationResult {
  /** The method checked: the requested one, or the entry's default when none was requested. */
  authMethodId: string;
  /** One message per failed check; empty when the request is valid. */
  errors: string[];
}

const ajv = new Ajv2020({ allErrors: true, strict: false, useDefaults: true });
addFormats(ajv);

interface CacheSlot {
  source: unknown;
  validate: ValidateFunction;
}
/** Compiled schemas, keyed by `<entry id>/<method id>/<config|credentials>`. */
const compiled = new Map<string, CacheSlot>();

/**
 * Compiles once per entry, method and part. `source` is what the schema was built from: an
 * entry object replaced under the same id (tests, a reloaded catalog) is recompiled, not reused.
 */
function compile(key: string, source: unknown, build: () => JsonObject): ValidateFunction {
  const hit = compiled.get(key);
  if (hit && hit.source === source) return hit.validate;
  const validate = ajv.compile(build());
  compiled.set(key, { source, validate });
  return validate;
}

/** The config schema, plus the fields the method needs beyond it (`required_config`). */
function configValidator(entry: IntegrationRecord, method: AuthMethod | undefined): ValidateFunction {
  const extra = method ? requiredConfig(method) : [];
  const base = entry.config_schema;
  return compile(`${entry.id}/${method?.id ?? ''}/config`, extra.length ? [base, method] : base, () => {
    if (!extra.length) return base;
    const required = Array.isArray(base['required']) ? (base['required'] as string[]) : [];
    return { ...base, required: [...new Set([...required, ...extra])] };
  });
}

function credentialsValidator(entry: IntegrationRecord, method: AuthMethod): ValidateFunction {
  return compile(`${entry.id}/${method.id}/credentials`, method.fields, () => method.fields);
}

function requiredConfig(method: AuthMethod): string[] {
  const value = (method as { required_config?: unknown }).required_config;
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

const FORMAT_NAMES: Record<string, string> = {
  uri: 'URL',
  url: 'URL',
  email: 'e-mail address',
  hostname: 'hostname',
  uuid: 'UUID',
  'date-time': 'date-time (RFC 3339)',
  date: 'date (YYYY-MM-DD)',
  time: 'time',
  ipv4: 'IPv4 address',
  ipv6: 'IPv6 address',
  regex: 'regular expression',
};

/** `/a/b~1c` → `a.b/c` (JSON Pointer to dotted path). */
function dotted(prefix: string, instancePath: string): string {
  if (!instancePath) return prefix;
  const parts = instancePath
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  return [prefix, ...parts].join('.');
}

const quote = (value: unknown): string => JSON.stringify(value);
const plural = (n: number, word: string, many = `${word}s`): string => `${n} ${n === 1 ? word : many}`;

/** One Ajv error as `<path>: <what is wrong>`, quoting the schema's constraint, never the value. */
function describe(prefix: string, error: ErrorObject): string {
  const path = dotted(prefix, error.instancePath);
  const params = error.params as Record<string, unknown>;
  const key = error.propertyName === undefined ? '' : `key ${quote(error.propertyName)} `;
  switch (error.keyword) {
    case 'required':
      return `${path}.${String(params['missingProperty'])}: is required`;
    case 'dependentRequired':
    case 'dependencies':
      return `${path}.${String(params['missingProperty'])}: is required when ${String(params['property'])} is given`;
    case 'additionalProperties':
      return `${path}.${String(params['additionalProperty'])}: is not allowed`;
    case 'format': {
      const format = String(params['format']);
      return `${path}: ${key}must be a valid ${FORMAT_NAMES[format] ?? format} (format ${format})`;
    }
    case 'pattern':
      return `${path}: ${key}must match pattern ${quote(params['pattern'])}`;
    case 'minLength':
      return `${path}: ${key}must be at least ${plural(Number(params['limit']), 'character')}`;
    case 'maxLength':
      return `${path}: ${key}must be at most ${plural(Number(params['limit']), 'character')}`;
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return `${path}: must be ${String(params['comparison'])} ${String(params['limit'])}`;
    case 'multipleOf':
      return `${path}: must be a multiple of ${String(params['multipleOf'])}`;
    case 'enum': {
      const allowed = Array.isArray(params['allowedValues']) ? (params['allowedValues'] as unknown[]) : [];
      return `${path}: must be one of ${allowed.map(quote).join(', ')}`;
    }
    case 'const':
      return `${path}: must be ${quote(params['allowedValue'])}`;
    case 'type': {
      const type = String(params['type']);
      const article = /^[aeiou]/.test(type) ? 'an' : 'a';
      return `${path}: must be ${article} ${type.replace(/,/g, ' or ')}`;
    }
    case 'minItems':
      return `${path}: must have at least ${plural(Number(params['limit']), 'item')}`;
    case 'maxItems':
      return `${path}: must have at most ${plural(Number(params['limit']), 'item')}`;
    case 'uniqueItems':
      return `${path}: must not contain duplicate items (items ${String(params['j'])} and ${String(params['i'])} are equal)`;
    case 'minProperties':
      return `${path}: must have at least ${plural(Number(params['limit']), 'property', 'properties')}`;
    case 'maxProperties':
      return `${path}: must have at most ${plural(Number(params['limit']), 'property', 'properties')}`;
    case 'propertyNames':
      return `${path}: has an invalid key ${quote(params['propertyName'])}`;
    default:
      // Ajv's own wording ("must be equal to one of the allowed values" …) carries no data.
      return `${path}: ${error.message ?? 'is invalid'}`;
  }
}

function schemaErrors(prefix: string, validate: ValidateFunction, data: unknown): string[] {
  if (validate(data)) return [];
  return (validate.errors ?? [])
    // The propertyNames summary repeats what its inner error (with the key named) says.
    .filter((e) => !(e.keyword === 'propertyNames' && (validate.errors ?? []).some((o) => o.propertyName === e.params['propertyName'] && o !== e)))
    .map((e) => describe(prefix, e));
}

const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);
const isGiven = (value: unknown): boolean => value !== undefined && value !== null && !(isObject(value) && Object.keys(value).length === 0);
const nonEmptyString = (value: unknown): value is string => typeof value === 'string' && value.length > 0;

/** A defensive deep copy for Ajv's `useDefaults`, which writes into the data it checks. */
function copy(value: unknown): unknown {
  return value === undefined ? undefined : (JSON.parse(JSON.stringify(value)) as unknown);
}

/** authorization_code: a token that has already expired is useless without a refresh token. */
function tokenExpiryErrors(credentials: JsonObject, now: Date): string[] {
  if (nonEmptyString(credentials['refresh_token'])) return [];
  const errors: string[] = [];
  const accessToken = credentials['access_token'];
  if (nonEmptyString(accessToken)) {
    const exp = jwtExpiryMs(accessToken);
    if (exp !== undefined && exp <= now.getTime()) {
      errors.push(`credentials.access_token: has expired (exp ${new Date(exp).toISOString()}) and no refresh_token is given`);
    }
  }
  const expiresAt = credentials['expires_at'];
  if (typeof expiresAt === 'string') {
    const at = Date.parse(expiresAt);
    if (Number.isFinite(at) && at <= now.getTime()) {
      errors.push(`credentials.expires_at: is in the past (${new Date(at).toISOString()}) and no refresh_token is given`);
    }
  }
  return errors;
}

/** client_credentials: one token request proves the client id and secret. */
async function clientCredentialsErrors(
  method: AuthMethod,
  config: JsonObject,
  credentials: JsonObject,
  requestToken: NonNullable<ConnectionValidationDeps['requestToken']>,
): Promise<string[]> {
  const oauth2 = method.oauth2;
  if (!oauth2?.token_url) return [];
  const filled = fillTemplate(oauth2.token_url, { config, credentials: {} }, 'url');
  // "config.x is not set" → "config.x: is required to request a token", naming the field first as every check does.
  if ('error' in filled) return [filled.error.endsWith(' is not set') ? `${filled.error.slice(0, -' is not set'.length)}: is required to request a token` : filled.error.replace(' ', ': ')];
  const url = filled.text;
  const form: Record<string, string> = {
    grant_type: 'client_credentials',
    client_id: String(credentials['client_id']),
    client_secret: String(credentials['client_secret']),
  };
  const separator = (oauth2 as { scope_separator?: unknown }).scope_separator === ',' ? ',' : ' ';
  if (oauth2.scopes.length) form['scope'] = oauth2.scopes.join(separator);
  try {
    const answer = await requestToken(url, form);
    if (answer.ok) return [];
    const reason = answer.error ? `: ${answer.error}` : '';
    return [`credentials: the token endpoint refused the client credentials (HTTP ${answer.status}${reason})`];
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return [`credentials: the token endpoint could not be reached (${reason})`];
  }
}

/** Masks the submitted secret values wherever they might appear, encoded forms included (second guard; see the header). */
function redact(messages: string[], method: AuthMethod | undefined, credentials: unknown): string[] {
  const secrets = secretValues(method, isObject(credentials) ? credentials : undefined);
  return secrets.length === 0 ? messages : messages.map((message) => maskSecrets(message, secrets));
}

export async function validateConnection(
  entry: IntegrationRecord,
  request: ConnectionValidationRequest,
  deps: ConnectionValidationDeps,
): Promise<ConnectionValidationResult> {
  const errors: string[] = [];

  // 1. The integration type the request claims.
  if (request.integration_type !== undefined && request.integration_type !== entry.integration_type) {
    errors.push(`integration_type: must be ${quote(entry.integration_type)} for integration ${entry.id}`);
  }

  // 2. The authentication method.
  const authMethodId = request.auth_method_id ?? entry.default_auth_method_id;
  const method = entry.auth_methods.find((m) => m.id === authMethodId);
  if (!method) {
    const valid = entry.auth_methods.map((m) => quote(m.id)).join(', ');
    errors.push(`auth_method_id: unknown method ${quote(authMethodId)} for integration ${entry.id} (valid: ${valid})`);
  }

  // 3. Non-secret configuration (with the method's required_config, when the method is known).
  const config = copy(request.config ?? {});
  errors.push(...schemaErrors('config', configValidator(entry, method), config));

  // 4. Credentials, unless an existing credential is reused.
  const credentials = copy(request.credentials ?? undefined);
  let credentialsChecked = false;
  if (request.credential_provided === true) {
    if (isGiven(request.credentials)) {
      errors.push('credentials: must be absent when an existing credential is reused (credential_provided)');
    }
  } else if (method?.type === 'none') {
    if (isGiven(request.credentials)) {
      const names = isObject(request.credentials) ? ` (got ${Object.keys(request.credentials).join(', ')})` : '';
      errors.push(`credentials: must be empty for auth method ${quote(method.id)}, which takes none${names}`);
    }
  } else if (method) {
    // Absent credentials are checked as {}: one "is required" per required field.
    const data = credentials ?? {};
    const fieldErrors = schemaErrors('credentials', credentialsValidator(entry, method), data);
    errors.push(...fieldErrors);
    credentialsChecked = fieldErrors.length === 0;

    // 5. OAuth 2.0.
    if (method.type === 'oauth2' && method.oauth2 && isObject(data)) {
      if (method.oauth2.grant_type === 'authorization_code') {
        errors.push(...tokenExpiryErrors(data, deps.now));
      } else if (method.oauth2.grant_type === 'client_credentials' && deps.requestToken && credentialsChecked && errors.length === 0 && isObject(config)) {
        errors.push(...(await clientCredentialsErrors(method, config, data, deps.requestToken)));
      }
    }
  }

  return { authMethodId, errors: [...new Set(redact(errors, method, request.credentials))] };
}
