/**
 * The catalog's `{{config.x}}`, `{{credentials.y}}` and `{{token.access_token}}` placeholders
 * (integration-entry.schema.json, `$defs/template`), and the masking of secret values that every
 * message leaving this folder goes through.
 *
 * A placeholder that cannot be filled is an error naming the field ("config.base_url is not
 * set"), never an empty string: an empty value would silently turn `{{config.base_url}}/user`
 * into a relative URL or send an empty credential to the vendor.
 */
import type { AuthMethod } from '@lore/connections/contracts';

export type JsonObject = Record<string, unknown>;

/** What the placeholders are filled from. `token` only exists once a grant obtained one. */
export interface TemplateValues {
  readonly config: JsonObject;
  readonly credentials: JsonObject;
  readonly token?: { readonly access_token: string } | undefined;
}

/**
 * Where the filled text goes: a header value may not hold a line break (it would end the header
 * and let a value smuggle in another one); a JSON body gets its values JSON-escaped so that a
 * quote in a config value cannot change the document's structure.
 */
export type TemplateTarget = 'url' | 'header' | 'json' | 'text';

const PLACEHOLDER = /\{\{(config|credentials|token)\.([a-z][a-z0-9_]*)\}\}/g;

export const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

function lookup(values: TemplateValues, source: string, name: string): unknown {
  if (source === 'config') return values.config[name];
  if (source === 'credentials') return values.credentials[name];
  return name === 'access_token' ? values.token?.access_token : undefined;
}

/** Fills every placeholder of `template`; answers the text, or why it cannot be filled. */
export function fillTemplate(template: string, values: TemplateValues, target: TemplateTarget): { text: string } | { error: string } {
  let error: string | undefined;
  const text = template.replace(PLACEHOLDER, (_all, source: string, name: string) => {
    const value = lookup(values, source, name);
    const field = `${source}.${name}`;
    if (value === undefined || value === null || value === '') {
      error ??= `${field} is not set`;
      return '';
    }
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
      error ??= `${field} must be a string to be used in a request`;
      return '';
    }
    const filled = String(value);
    if (target === 'header' && /[\r\n\0]/.test(filled)) {
      error ??= `${field} contains a line break, which a header value cannot hold`;
      return '';
    }
    return target === 'json' ? JSON.stringify(filled).slice(1, -1) : filled;
  });
  return error === undefined ? { text } : { error };
}

/** The secret values of a method's credentials, plus any other secret strings given (tokens, assertions). */
export function secretValues(method: AuthMethod | undefined, credentials: JsonObject | undefined, ...extra: Array<string | undefined>): string[] {
  const fromFields = method && credentials ? method.secret_fields.map((name) => credentials[name]) : [];
  return [...fromFields, ...extra].filter((v): v is string => typeof v === 'string');
}

/**
 * Replaces every secret found in `text` by `[redacted]`: the last guard before a message leaves
 * (a vendor's error text may echo what it was sent). A secret's base64 and URL-encoded forms are
 * masked too, since that is how Basic credentials and form bodies carry them. Values shorter
 * than 4 characters are left alone: masking "1" would mangle every message and protect nothing.
 */
export function maskSecrets(text: string, secrets: readonly string[]): string {
  const forms = new Set<string>();
  for (const secret of secrets) {
    if (secret.length < 4) continue;
    forms.add(secret);
    forms.add(encodeURIComponent(secret));
    forms.add(new URLSearchParams({ s: secret }).toString().slice(2));
    forms.add(Buffer.from(secret, 'utf8').toString('base64'));
    // A multi-line secret (a PEM key) may surface one line at a time.
    for (const line of secret.split(/\r?\n/)) if (line.length >= 16) forms.add(line);
  }
  return [...forms]
    .sort((a, b) => b.length - a.length)
    .reduce((masked, form) => masked.split(form).join('[redacted]'), text);
}

/** `{ ...defaults of the schema's properties, ...values }`: fields with a default may be left out (as the validator allows). */
export function withDefaults(schema: JsonObject | undefined, values: JsonObject): JsonObject {
  const properties = isObject(schema?.['properties']) ? schema['properties'] : {};
  const defaults: JsonObject = {};
  for (const [name, property] of Object.entries(properties)) {
    if (isObject(property) && property['default'] !== undefined) defaults[name] = property['default'];
  }
  const given = Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined && v !== null));
  return { ...defaults, ...given };
}
