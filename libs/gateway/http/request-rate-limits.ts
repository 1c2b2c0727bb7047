import type { FastifyReply } from 'fastify';
import { AppError, RateLimiter, type Admission, type PolicyState, type RateBucketStore, type RateCheck, type RateLimit, type WorkspaceOverrides } from '@lore/platform/kernel';
import type { RequestScope } from '@lore/platform/http';

/** A rate as configured: requests a minute and how many may come at once; 0 a minute is no limit. */
export interface RateSetting {
  readonly perMinute: number;
  readonly burst: number;
}

/** RATE_LIMIT_* and LORE_WORKSPACE_LIMITS, as the runtime's configuration reads them. */
export interface RateLimitSettings {
  readonly caller: RateSetting;
  readonly workspace: RateSetting;
  readonly leaseMs: number;
  readonly overrides: WorkspaceOverrides;
}

export type RatePolicyName = 'caller' | 'workspace';

/**
 * Request rates per caller (API key or JWT user) and per workspace, checked after the caller
 * is authenticated and bound to a workspace, before its body is read or it is sent on. Every
 * authenticated API request costs one unit of both budgets, reads and writes alike (one
 * budget is what clients can plan with; the heavy writes are bounded by the storage quotas),
 * and an event stream costs one when it opens. Open routes (health, readiness, metrics,
 * OpenAPI, docs) are never limited; requests refused before a workspace is known (401, 403)
 * cost nothing, so nobody can spend another workspace's budget.
 *
 * Every answer carries `RateLimit-Policy` and `RateLimit` (draft-ietf-httpapi-ratelimit-headers):
 * `"caller";q=6000;w=60, "workspace";q=24000;w=60` and `"caller";r=1998;t=1, ...` with `t` the
 * seconds until another unit frees; a refusal is 429 with `Retry-After` and the refusing policy.
 */
export class RequestRateLimits {
  private readonly limiter: RateLimiter;

  constructor(
    private readonly settings: RateLimitSettings,
    store: RateBucketStore,
    private readonly hooks: { readonly onRefused?: (policy: RatePolicyName) => void; readonly onStoreError?: (error: unknown) => void } = {},
  ) {
    this.limiter = new RateLimiter({ store, leaseMs: settings.leaseMs, ...(hooks.onStoreError ? { onStoreError: hooks.onStoreError } : {}) });
  }

  /**
   * Takes one unit of the caller's and the workspace's budgets and sets the headers; throws 429
   * when either is spent. Synchronous (undefined) when the buckets are in this process; a
   * promise when they are shared (NATS key-value), to be awaited.
   */
  admit(scope: RequestScope, reply: FastifyReply): Promise<void> | undefined {
    const checks = this.checksFor(scope);
    if (checks.length === 0) return undefined;
    const known = this.limiter.admitAtOnce(checks);
    if (known !== undefined) {
      this.answer(checks, known, reply);
      return undefined;
    }
    return this.limiter.admit(checks).then((admission) => this.answer(checks, admission, reply));
  }

  private answer(checks: readonly RateCheck[], admission: Admission, reply: FastifyReply): void {
    reply.header('RateLimit-Policy', checks.map(policyItem).join(', '));
    if (admission.allowed) {
      if (admission.states.length > 0) reply.header('RateLimit', admission.states.map(stateItem).join(', '));
      return;
    }
    const { refusedBy, retryAfterSeconds } = admission;
    reply.header('RateLimit', stateItem(refusedBy));
    reply.header('Retry-After', String(retryAfterSeconds));
    this.hooks.onRefused?.(refusedBy.policy === 'caller' ? 'caller' : 'workspace');
    const whose = refusedBy.policy === 'caller' ? 'this API key or user' : 'this workspace';
    throw new AppError(
      'rate_limited',
      `Rate limit ${refusedBy.policy} of ${refusedBy.limit.quota} requests per ${refusedBy.limit.windowSeconds} s (burst ${refusedBy.limit.burst}) reached for ${whose}; retry after ${retryAfterSeconds} s`,
    );
  }

  private checksFor(scope: RequestScope): RateCheck[] {
    const override = this.settings.overrides.get(scope.workspaceId);
    const checks: RateCheck[] = [];
    const caller = limitOf(override?.caller_requests_per_minute ?? this.settings.caller.perMinute, override?.caller_burst ?? this.settings.caller.burst);
    const id = scope.caller.kind === 'api_key' ? `api_key:${scope.caller.keyId}` : `user:${scope.caller.userId}`;
    if (caller !== null) checks.push({ policy: 'caller', id, limit: caller });
    const workspace = limitOf(override?.requests_per_minute ?? this.settings.workspace.perMinute, override?.burst ?? this.settings.workspace.burst);
    if (workspace !== null) checks.push({ policy: 'workspace', id: scope.workspaceId, limit: workspace });
    return checks;
  }
}

/** No burst configured (0): a minute's worth may come at once. */
function limitOf(perMinute: number, burst: number): RateLimit | null {
  if (perMinute <= 0) return null;
  return { quota: perMinute, windowSeconds: 60, burst: burst > 0 ? burst : perMinute };
}

/** A quota policy item: `"caller";q=6000;w=60` (the policy name is a Structured Fields String). */
function policyItem(check: RateCheck): string {
  return `"${check.policy}";q=${check.limit.quota};w=${check.limit.windowSeconds}`;
}

/** A service limit item: `"caller";r=998;t=1`. */
function stateItem(state: PolicyState): string {
  return `"${state.policy}";r=${state.remaining};t=${state.resetSeconds}`;
}
