import { SignJWT } from 'jose';
import { LoreClient, type LoreClientOptions } from '@lore/client';

/** A running Lore (standalone or distributed) as the SDK suites see it. */
export interface LoreUnderTest {
  readonly url: string;
  readonly jwtSecret: string;
}

/**
 * What the SDK suites need of the server's configuration, in both topologies: webhook retries
 * and egress to the suite's receiver on 127.0.0.1, and one workspace with a caller budget of
 * one request a second (burst 1), where a second request is refused with `Retry-After: 1`.
 */
export const SDK_TEST_ENV = {
  LORE_EGRESS_ALLOW: '127.0.0.1',
  WEBHOOK_RETRY_SCHEDULE_MS: '200,400,800',
  WEBHOOK_POLL_MS: '100',
  LORE_WORKSPACE_LIMITS: JSON.stringify({ 'sdk-rate-limited': { caller_requests_per_minute: 60, caller_burst: 1 } }),
};

export function unique(prefix: string): string {
  return `${prefix}-${Math.random().toString(36).slice(2, 10)}`;
}

/** An HS256 token as an identity provider would issue it (one hour). */
export async function jwtFor(lore: LoreUnderTest, sub: string, workspace: string): Promise<string> {
  return new SignJWT({ workspace_id: workspace }).setProtectedHeader({ alg: 'HS256' }).setSubject(sub).setIssuedAt().setExpirationTime('1h').sign(new TextEncoder().encode(lore.jwtSecret));
}

/** A fresh workspace and user with a JWT client, so suites never see each other's data. */
export async function freshUser(lore: LoreUnderTest, options: Partial<LoreClientOptions> = {}): Promise<{ client: LoreClient; user: string; workspace: string; token: string }> {
  const user = unique('user');
  const workspace = options.workspaceId ?? unique('ws');
  const token = await jwtFor(lore, user, workspace);
  return { client: new LoreClient({ baseUrl: lore.url, token, ...options }), user, workspace, token };
}

/** Polls until `check` accepts what `read` returns (background work: processing, deliveries). */
export async function eventually<T>(read: () => Promise<T>, check: (value: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (check(value)) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms: ${JSON.stringify(value).slice(0, 500)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
