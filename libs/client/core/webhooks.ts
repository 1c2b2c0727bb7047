/**
 * Standard Webhooks (https://www.standardwebhooks.com) signature verification for receivers of
 * Lore's webhooks, on WebCrypto (Node ≥ 20, browsers, edge runtimes): the signed content is
 * `<webhook-id>.<webhook-timestamp>.<body>`, signed with HMAC-SHA256 under the base64 key after
 * `whsec_`; `webhook-signature` holds one or more space-separated `v1,<base64>` signatures.
 */

/** What Lore POSTs: the event type, when it was sent, and the integration event. */
export interface WebhookPayload<E = Record<string, unknown>> {
  readonly type: string;
  readonly timestamp: string;
  readonly data: E;
}

export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
}

export interface VerifyOptions {
  /** How far `webhook-timestamp` may be from now (default 5 minutes, as the specification suggests): older deliveries are replays. */
  readonly toleranceSeconds?: number;
  /** The current time in ms (tests). */
  readonly now?: number;
}

type HeaderSource = Headers | Record<string, string | string[] | undefined>;

/**
 * Checks a delivery and returns its payload; throws {@link WebhookVerificationError} when a
 * header is missing, the timestamp is outside the tolerance or no signature matches. `body` is
 * the raw request body exactly as received (parse it only after verifying).
 */
export async function verifyWebhook<E = Record<string, unknown>>(secret: string, body: string | Uint8Array, headers: HeaderSource, options: VerifyOptions = {}): Promise<WebhookPayload<E>> {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (id === undefined || timestamp === undefined || signatures === undefined) throw new WebhookVerificationError('Missing webhook-id, webhook-timestamp or webhook-signature header');
  const seconds = Number(timestamp);
  const now = (options.now ?? Date.now()) / 1000;
  if (!/^\d+$/.test(timestamp) || Math.abs(now - seconds) > (options.toleranceSeconds ?? 300)) throw new WebhookVerificationError('Webhook timestamp is missing, malformed or outside the tolerance');
  const text = typeof body === 'string' ? body : new TextDecoder().decode(body);
  const key = await crypto.subtle.importKey('raw', secretBytes(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);
  const signed = new TextEncoder().encode(`${id}.${timestamp}.${text}`);
  for (const candidate of signatures.split(' ')) {
    const [version, signature] = candidate.split(',', 2);
    if (version !== 'v1' || signature === undefined) continue;
    const bytes = base64ToBytes(signature);
    // subtle.verify compares in constant time.
    if (bytes !== undefined && (await crypto.subtle.verify('HMAC', key, bytes, signed))) return JSON.parse(text) as WebhookPayload<E>;
  }
  throw new WebhookVerificationError('No matching webhook signature');
}

function header(headers: HeaderSource, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const value = headers[name] ?? Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
  return Array.isArray(value) ? value[0] : value;
}

function secretBytes(secret: string): Uint8Array<ArrayBuffer> {
  const bytes = base64ToBytes(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret);
  if (bytes === undefined || bytes.length === 0) throw new WebhookVerificationError('The webhook secret is not base64 (whsec_…)');
  return bytes;
}

function base64ToBytes(text: string): Uint8Array<ArrayBuffer> | undefined {
  try {
    const binary = atob(text);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return bytes;
  } catch {
    return undefined;
  }
}
