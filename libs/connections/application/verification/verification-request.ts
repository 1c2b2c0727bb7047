/**
 * Turns a method's `verification` (integration-entry.schema.json, `$defs/verification`) into the
 * outbound request that proves a credential: placeholders filled, Basic credentials encoded,
 * AWS requests signed. Pure: no I/O, the clock comes in for SigV4.
 *
 * Errors name the field at fault and never a value ("config.base_url is not set").
 */
import { z } from 'zod';
import type { OutboundRequest } from '@lore/platform/egress/port';
import { signAwsSigV4 } from './aws-sigv4';
import type { AuthMethod } from '@lore/connections/contracts';
import type { JsonObject, TemplateTarget, TemplateValues } from './templates';
import { fillTemplate } from './templates';

/**
 * The parts of `$defs/verification` the contracts' record leaves loose (it keeps unknown keys).
 * The catalog spec checks the entries against the JSON Schema; this re-reads the fields used here.
 */
export const VerificationSpec = z.object({
  method: z.enum(['GET', 'POST']),
  url: z.string(),
  headers: z.record(z.string(), z.string()).optional(),
  body: z.string().optional(),
  basic_auth: z.object({ username: z.string(), password: z.string() }).optional(),
  aws_sigv4: z.object({ service: z.string().regex(/^[a-z0-9-]+$/), region: z.string() }).optional(),
  expect_status: z.array(z.number().int()).min(1),
  expect_json: z.object({ pointer: z.string(), equals: z.unknown() }).optional(),
});
export type VerificationSpec = z.infer<typeof VerificationSpec>;

/** The method's verification, or undefined when it has none (databases, SMTP, webhooks). */
export function verificationOf(method: AuthMethod): VerificationSpec | undefined {
  if (method.verification === undefined) return undefined;
  const parsed = VerificationSpec.safeParse(method.verification);
  if (!parsed.success) throw new Error(`auth method ${method.id}: malformed verification in the catalog`);
  return parsed.data;
}

const HEADER_NAME = /^[A-Za-z0-9-]+$/;
const REGION = /^[a-z0-9-]+$/;

type Filled = { text: string } | { error: string };

const isJson = (headers: Readonly<Record<string, string>>): boolean =>
  Object.entries(headers).some(([name, value]) => name.toLowerCase() === 'content-type' && /json/i.test(value));

/**
 * The verification request for `method`, or why it cannot be built. `token` is what the method's
 * grant obtained (client_credentials, jwt_bearer); `now` dates an AWS signature.
 */
export function buildVerificationRequest(
  method: AuthMethod,
  config: JsonObject,
  credentials: JsonObject,
  token?: { readonly access_token: string },
  now: Date = new Date(),
): OutboundRequest | { error: string } {
  const spec = verificationOf(method);
  if (!spec) return { error: `auth method ${method.id} has no verification request` };
  const values: TemplateValues = { config, credentials, token };
  let error: string | undefined;
  const fill = (template: string, target: TemplateTarget): string => {
    const filled: Filled = fillTemplate(template, values, target);
    if ('error' in filled) {
      error ??= filled.error;
      return '';
    }
    return filled.text;
  };

  const url = fill(spec.url, 'url');
  const headers: Record<string, string> = {};
  for (const [nameTemplate, valueTemplate] of Object.entries(spec.headers ?? {})) {
    const name = fill(nameTemplate, 'header');
    if (error === undefined && !HEADER_NAME.test(name)) {
      // The name came from a placeholder (`{{config.api_key_header}}`); the literal ones are checked by the catalog spec.
      error = `${nameTemplate.replace(/^\{\{(.*)\}\}$/, '$1')} is not a valid header name`;
    }
    headers[name] = fill(valueTemplate, 'header');
  }
  if (spec.basic_auth) {
    const username = fill(spec.basic_auth.username, 'header');
    const password = fill(spec.basic_auth.password, 'header');
    headers['Authorization'] = `Basic ${Buffer.from(`${username}:${password}`, 'utf8').toString('base64')}`;
  }
  const body = spec.body === undefined ? undefined : fill(spec.body, isJson(headers) ? 'json' : 'text');
  if (error !== undefined) return { error };

  // The URL is not quoted back: credentials may travel in it (Telegram's bot token, an Azure SAS).
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { error: 'the verification URL is not a valid URL (check config.base_url or the like)' };
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return { error: 'the verification URL must be http or https' };

  const request = { method: spec.method, url: parsed.toString(), headers, ...(body === undefined ? {} : { body }) };
  if (!spec.aws_sigv4) return request;

  const region = fill(spec.aws_sigv4.region, 'header');
  if (error !== undefined) return { error };
  if (!REGION.test(region)) return { error: 'config.region is not a valid AWS region' };
  const accessKeyId = credentials['access_key_id'];
  const secretAccessKey = credentials['secret_access_key'];
  const sessionToken = credentials['session_token'];
  if (typeof accessKeyId !== 'string' || !accessKeyId) return { error: 'credentials.access_key_id is not set' };
  if (typeof secretAccessKey !== 'string' || !secretAccessKey) return { error: 'credentials.secret_access_key is not set' };
  const signed = signAwsSigV4(
    request,
    { accessKeyId, secretAccessKey, sessionToken: typeof sessionToken === 'string' && sessionToken ? sessionToken : undefined },
    { service: spec.aws_sigv4.service, region },
    now,
  );
  return { ...request, headers: signed.headers };
}

export const isRequestError = (value: OutboundRequest | { error: string }): value is { error: string } => 'error' in value;
