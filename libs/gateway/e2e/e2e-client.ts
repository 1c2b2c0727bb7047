import { SignJWT } from 'jose';

/** A running Lore (either topology) as the black-box suites see it. */
export interface LoreUnderTest {
  readonly url: string;
  readonly jwtSecret: string;
}

export interface Reply<T = any> {
  readonly status: number;
  readonly body: T;
  readonly headers: Headers;
}

/**
 * An HS256 token as an identity provider issues it. `roles: ['admin']` makes a workspace
 * administrator (the default AUTH_ADMIN_CLAIM); `expiresIn: null` leaves `exp` out, which
 * the server refuses unless configured otherwise.
 */
export async function mintJwt(
  secret: string,
  claims: { sub: string; workspace_id?: string; workspaces?: string[]; roles?: string | string[] },
  expiresIn: string | number | null = '1h',
): Promise<string> {
  const { sub, ...rest } = claims;
  const jwt = new SignJWT(rest).setProtectedHeader({ alg: 'HS256' }).setSubject(sub).setIssuedAt();
  return (expiresIn === null ? jwt : jwt.setExpirationTime(expiresIn)).sign(new TextEncoder().encode(secret));
}

export async function call<T = any>(
  lore: LoreUnderTest,
  method: string,
  path: string,
  options: { token?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> } = {},
): Promise<Reply<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers['authorization'] = `Bearer ${options.token}`;
  let body: string | undefined;
  if (options.rawBody !== undefined) body = options.rawBody;
  else if (options.body !== undefined) body = JSON.stringify(options.body);
  if (body !== undefined) headers['content-type'] = 'application/json';
  return replyOf<T>(await fetch(`${lore.url}${path}`, { method, headers, ...(body === undefined ? {} : { body }) }));
}

/** The status, headers and body (JSON when it parses, else the text). */
async function replyOf<T>(response: Response): Promise<Reply<T>> {
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = text;
  }
  return { status: response.status, body: parsed as T, headers: response.headers };
}

/** A fresh workspace and user per test keeps suites independent on a shared server. */
export function unique(prefix: string): string {
  return `${prefix}-${Math.random().toString(36).slice(2, 10)}`;
}

/** A multipart/form-data POST (one file part `file` plus text fields), as browsers and SDKs upload. */
export async function upload<T = any>(
  lore: LoreUnderTest,
  path: string,
  options: { token: string; file: { name: string; type: string; content: string | Uint8Array }; fields?: Record<string, string> },
): Promise<Reply<T>> {
  const form = new FormData();
  for (const [name, value] of Object.entries(options.fields ?? {})) form.append(name, value);
  form.append('file', new Blob([options.file.content], { type: options.file.type }), options.file.name);
  return replyOf<T>(await fetch(`${lore.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${options.token}` }, body: form }));
}
