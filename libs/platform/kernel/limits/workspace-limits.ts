import { z } from 'zod';
import { AppError } from '../errors';

/** The storage quotas each workspace has, enforced by the context owning the data. */
export const QUOTA_NAMES = ['content_bytes', 'chunks', 'memories', 'conversations'] as const;
export type QuotaName = (typeof QUOTA_NAMES)[number];

const count = z.number().int().min(0);

/** One workspace's overrides in LORE_WORKSPACE_LIMITS: any of the rates and quotas; 0 means unlimited. */
const WorkspaceOverride = z
  .object({
    requests_per_minute: count,
    burst: count,
    caller_requests_per_minute: count,
    caller_burst: count,
    content_bytes: count,
    chunks: count,
    memories: count,
    conversations: count,
  })
  .partial()
  .strict();
export type WorkspaceOverride = z.infer<typeof WorkspaceOverride>;
export type WorkspaceOverrides = ReadonlyMap<string, WorkspaceOverride>;

/**
 * LORE_WORKSPACE_LIMITS: a JSON object from workspace id to its overrides, e.g.
 * `{"acme": {"requests_per_minute": 60000, "memories": 1000000}}`. Unset or blank: none.
 * Every process reading it (the gateway for rates, each service for its quotas) refuses to
 * start on a malformed value rather than run without the limits an operator set.
 */
export const workspaceLimitsEnv = z
  .string()
  .optional()
  .transform((value, ctx): WorkspaceOverrides => {
    if (value === undefined || value.trim() === '') return new Map();
    let json: unknown;
    try {
      json = JSON.parse(value);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be a JSON object of workspace id to limits' });
      return z.NEVER;
    }
    const parsed = z.record(z.string().min(1), WorkspaceOverride).safeParse(json);
    if (!parsed.success) {
      ctx.addIssue({ code: 'custom', message: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') });
      return z.NEVER;
    }
    return new Map(Object.entries(parsed.data));
  });

/** How long a workspace's count stands in for a fresh one (far from the limit). */
const RECENT_MS = 5_000;
/** Workspaces whose recent counts are kept; past it they are all forgotten (and counted afresh). */
const MAX_RECENT = 10_000;

/** A QUOTA_* variable: a count, 0 for unlimited. */
export const quotaEnv = (fallback: number) => z.coerce.number().int().min(0).default(fallback);

/** One storage quota of every workspace: its default (env) and the per-workspace overrides. */
export class WorkspaceQuota {
  constructor(
    readonly name: QuotaName,
    /** The environment variable that sets the default, named in refusals so operators know what to raise. */
    private readonly variable: string,
    private readonly fallback: number,
    private readonly overrides: WorkspaceOverrides,
  ) {}

  /** Recent counts per workspace, so that writes far below the limit need not count on every write. */
  private readonly recent = new Map<string, { used: number; at: number }>();

  /**
   * Counts the workspace's usage (from the owning context's read model) and refuses what would
   * pass the limit. A count younger than RECENT_MS, plus what this process added since, stands
   * in for a fresh one while it stays below 90 % of the limit: exact near the limit, one count
   * every few seconds far from it.
   *
   * A refusing count is not remembered: each refused write counts again. Remembering it would
   * answer a stale 403 after a deletion this process does not see: another instance of the
   * service shares its requests (NATS queue group), and usage also falls outside deletions
   * (memories expiring, a reprocess or a failed attempt dropping chunks). Room made by a
   * deletion is usable at once; the refused writes' rate is bounded by the request limits.
   */
  async enforce(workspaceId: string, countUsed: () => Promise<number>, adding = 1, now = Date.now()): Promise<void> {
    if (this.admitsAtOnce(workspaceId, adding, now)) return;
    await this.count(workspaceId, countUsed, adding, now);
  }

  /**
   * Refuses, as {@link enforce} would, when not even one more unit fits; notes nothing (the
   * write's own `enforce` adds its size). For a check before costly work whose size is not
   * known yet: a file upload is refused before a reader process extracts its text.
   */
  async assertRoom(workspaceId: string, countUsed: () => Promise<number>, now = Date.now()): Promise<void> {
    const limit = this.limitOf(workspaceId);
    if (limit === 0 || this.recentlyBelow(workspaceId, 1, limit, now)) return;
    await this.count(workspaceId, countUsed, 1, now, 0);
  }

  /** A fresh count, checked with `adding` more; remembered with `noted` of them added. */
  private async count(workspaceId: string, countUsed: () => Promise<number>, adding: number, now: number, noted = adding): Promise<void> {
    const used = await countUsed();
    this.check(workspaceId, used, adding);
    if (this.recent.size >= MAX_RECENT) this.recent.clear();
    this.recent.set(workspaceId, { used: used + noted, at: now });
  }

  /** Whether a recent count, with `adding` more, stays below 90 % of the limit. */
  private recentlyBelow(workspaceId: string, adding: number, limit: number, now: number): boolean {
    const known = this.recent.get(workspaceId);
    return known !== undefined && now - known.at < RECENT_MS && known.used + adding <= limit * 0.9;
  }

  /**
   * What {@link enforce} decides without counting: true (and `adding` noted) when the workspace
   * is unlimited or a recent count leaves room; false when only a count can tell, which is then
   * `enforce`'s to make. A write path asks this first, so the usual case costs no promise.
   */
  admitsAtOnce(workspaceId: string, adding = 1, now = Date.now()): boolean {
    const limit = this.limitOf(workspaceId);
    if (limit === 0) return true;
    if (!this.recentlyBelow(workspaceId, adding, limit, now)) return false;
    const known = this.recent.get(workspaceId);
    if (known !== undefined) known.used += adding;
    return true;
  }

  /** The workspace's limit; 0 is unlimited. */
  limitOf(workspaceId: string): number {
    return this.overrides.get(workspaceId)?.[this.name] ?? this.fallback;
  }

  /**
   * Refuses (403, naming the quota) when `used + adding` would pass the workspace's limit.
   * Counted from the read model before the write, so concurrent writes may pass it by as many
   * as run at once, as every count-then-write limit does.
   */
  check(workspaceId: string, used: number, adding = 1): void {
    const limit = this.limitOf(workspaceId);
    if (limit === 0 || used + adding <= limit) return;
    throw new QuotaExceededError(this.name, `Workspace quota ${this.name} of ${limit} reached (${used} used${adding === 1 ? '' : `, ${adding} more asked`}): delete some, or ask the operator to raise ${this.variable} or this workspace's LORE_WORKSPACE_LIMITS`);
  }
}

/** A storage quota's refusal: a 403 to the caller; the quota it names lets the serving side count it (lore_quota_refusals_total). */
export class QuotaExceededError extends AppError {
  constructor(
    readonly quota: QuotaName,
    message: string,
  ) {
    super('forbidden', message);
    this.name = 'QuotaExceededError';
  }
}
