/**
 * AWS Signature Version 4 for header-signed requests (the catalog's `aws_sigv4`: S3, Bedrock).
 *
 * Written against AWS's published algorithm with node:crypto rather than pulling in the AWS SDK
 * for one signed GET. The steps are kept apart (canonical request, string to sign, signature)
 * and returned, so the unit test can check each one against AWS's published examples.
 *
 * The time comes in as an argument: a signature is only valid within minutes of the date it
 * names, and tests need a fixed one to reproduce the published vectors.
 */
import { createHash, createHmac } from 'node:crypto';

export interface AwsCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  /** Temporary (ASIA…) credentials come with one; it is sent and signed as x-amz-security-token. */
  readonly sessionToken?: string | undefined;
}

export interface SigV4Scope {
  readonly service: string;
  readonly region: string;
}

export interface SignableRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string | undefined;
}

export interface SigV4Signature {
  /** The request's headers plus x-amz-date, x-amz-content-sha256 (S3), x-amz-security-token and authorization. */
  readonly headers: Record<string, string>;
  readonly canonicalRequest: string;
  readonly stringToSign: string;
  readonly signature: string;
}

const sha256 = (data: string): string => createHash('sha256').update(data, 'utf8').digest('hex');
const hmac = (key: Buffer | string, data: string): Buffer => createHmac('sha256', key).update(data, 'utf8').digest();

/** RFC 3986 encoding as SigV4 wants it: everything but A-Z a-z 0-9 - _ . ~ (encodeURIComponent lets !'()* through). */
export function uriEncode(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

function decode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/**
 * The canonical URI. Every service but S3 encodes the path as sent once more (so `%20` on the wire
 * is `%2520` here); S3 encodes each segment of the object key exactly once.
 */
function canonicalUri(pathname: string, service: string): string {
  const segments = pathname.split('/').map((s) => (service === 's3' ? uriEncode(decode(s)) : uriEncode(s)));
  const path = segments.join('/');
  return path.startsWith('/') ? path : `/${path}`;
}

/** Parameters sorted by encoded name, then value; `+` is taken literally (not as a space). */
function canonicalQuery(search: string): string {
  if (search.length <= 1) return '';
  return search
    .slice(1)
    .split('&')
    .filter((pair) => pair.length > 0)
    .map((pair) => {
      const at = pair.indexOf('=');
      const [name, value] = at < 0 ? [pair, ''] : [pair.slice(0, at), pair.slice(at + 1)];
      return [uriEncode(decode(name)), uriEncode(decode(value))] as const;
    })
    .sort(([an, av], [bn, bv]) => (an < bn ? -1 : an > bn ? 1 : av < bv ? -1 : av > bv ? 1 : 0))
    .map(([name, value]) => `${name}=${value}`)
    .join('&');
}

/** `20150830T123600Z` */
export const amzDate = (now: Date): string => now.toISOString().replace(/[-:]|\.\d{3}/g, '');

/** Signs `request` for `scope` at `now`; every header of the request is signed, with `host` from its URL. */
export function signAwsSigV4(request: SignableRequest, credentials: AwsCredentials, scope: SigV4Scope, now: Date): SigV4Signature {
  const url = new URL(request.url);
  const date = amzDate(now);
  const day = date.slice(0, 8);
  const payloadHash = sha256(request.body ?? '');

  const headers: Record<string, string> = { ...request.headers, 'x-amz-date': date };
  // S3 refuses a request without the payload hash header; other services do not want it.
  if (scope.service === 's3') headers['x-amz-content-sha256'] = payloadHash;
  if (credentials.sessionToken) headers['x-amz-security-token'] = credentials.sessionToken;

  // Lower-case names, trimmed values with runs of spaces folded, sorted by name.
  const signed = new Map<string, string>([['host', url.host]]);
  for (const [name, value] of Object.entries(headers)) {
    const key = name.toLowerCase();
    if (key === 'authorization') continue;
    signed.set(key, value.trim().replace(/\s+/g, ' '));
  }
  const names = [...signed.keys()].sort();
  const signedHeaders = names.join(';');
  const canonicalHeaders = names.map((n) => `${n}:${signed.get(n) ?? ''}\n`).join('');

  const canonicalRequest = [
    request.method.toUpperCase(),
    canonicalUri(url.pathname, scope.service),
    canonicalQuery(url.search),
    canonicalHeaders,
    signedHeaders,
    payloadHash,
  ].join('\n');

  const credentialScope = `${day}/${scope.region}/${scope.service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', date, credentialScope, sha256(canonicalRequest)].join('\n');

  const signingKey = hmac(hmac(hmac(hmac(`AWS4${credentials.secretAccessKey}`, day), scope.region), scope.service), 'aws4_request');
  const signature = createHmac('sha256', signingKey).update(stringToSign, 'utf8').digest('hex');

  headers['authorization'] =
    `AWS4-HMAC-SHA256 Credential=${credentials.accessKeyId}/${credentialScope}, SignedHeaders=${signedHeaders}, Signature=${signature}`;
  return { headers, canonicalRequest, stringToSign, signature };
}
