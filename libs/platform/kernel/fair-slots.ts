import { AppError, unavailable } from './errors';

/**
 * What a refused caller is told, in the terms of what the slots are for (uploaded files and
 * their reader processes, large JSON bodies and their reader thread) and the settings that
 * bound them: the status (429 or 503) and `Retry-After` are FairSlots' own.
 */
export interface FairSlotsRefusals {
  /** 429: the workspace has `perWorkspace` holding or waiting already. */
  readonly workspaceFull: (perWorkspace: number) => string;
  /** 503: `queue` wait already. */
  readonly queueFull: () => string;
  /** 429: waited `maxWaitMs` while the workspace's own others held its share. */
  readonly waitedBehindOwn: (maxWaitMs: number) => string;
  /** 503: waited `maxWaitMs` and no slot came free. */
  readonly waitedTooLong: (maxWaitMs: number) => string;
}

export interface FairSlotsOptions {
  /** Holders at once (the reader processes, the reader thread). */
  readonly slots: number;
  /** Holders and waiters of one workspace at once; more are refused with 429. */
  readonly perWorkspace: number;
  /** Waiters of all workspaces together; more are refused with 503. */
  readonly queue: number;
  /** The longest a waiter waits for a slot before it is refused (503, or 429 when its own workspace held its share). */
  readonly maxWaitMs: number;
  readonly refusals: FairSlotsRefusals;
  /**
   * Slots one workspace may hold at once (default: all but one, at least one): the rest stay
   * free for other workspaces, since a slot cannot be taken back from a slow file.
   */
  readonly heldPerWorkspace?: number;
}

/** Gives the slot back; calling it again does nothing. */
export type Release = () => void;

interface Waiter {
  readonly workspaceId: string;
  readonly admit: (release: Release) => void;
  readonly timer: NodeJS.Timeout;
}

/** A client that waits this long is likely to find a slot: most files and bodies are read in well under a second. */
export const FAIR_SLOTS_RETRY_AFTER_SECONDS = 1;

/** A waiter whose caller went away: nobody reads this answer, but the promise must settle. */
const callerGone = (): AppError => unavailable('The caller went away while waiting for its turn');

/**
 * Slots for work that takes its turn on a scarce reader (uploaded files on the reader
 * processes, large JSON bodies on the reader thread), handed out fairly across workspaces:
 * waiters queue per workspace, and a freed slot goes to the waiting workspace that got one
 * longest ago (one that has had none yet first), so a file waits behind at most one file of
 * each other workspace that is waiting, never behind a whole burst of one. A workspace may
 * hold or wait for `perWorkspace` slots at once; beyond that it is refused with 429 (its own
 * work is what is in the way), so one workspace cannot take every place in the queue. A waiter
 * that finds no slot within `maxWaitMs` is refused with 503 instead of outliving the request it
 * serves. A workspace holds at most `heldPerWorkspace` slots at once (all but one by default,
 * at least one), so another workspace finds a slot free even while one workspace's hostile
 * files take their full time.
 */
export class FairSlots {
  private held = 0;
  private waiting = 0;
  /** Holders and waiters per workspace (those with none are absent). */
  private readonly inUse = new Map<string, number>();
  /** Waiters per workspace, in order of arrival (of the workspace's first waiter). */
  private readonly lines = new Map<string, Waiter[]>();
  /** When each workspace with files in here last got a slot (a count of slots given). */
  private readonly lastServed = new Map<string, number>();
  private readonly heldCap: number;
  private served = 0;

  constructor(private readonly options: FairSlotsOptions) {
    this.heldCap = options.heldPerWorkspace ?? Math.max(1, options.slots - 1);
  }

  /**
   * Resolves with a slot for one of `workspaceId`'s files; rejects with 429 or 503 as described
   * above. `signal`: the caller went away (its client closed the connection): a waiter leaves
   * the queue at once rather than hold its place until its wait runs out.
   */
  acquire(workspaceId: string, signal?: AbortSignal): Promise<Release> {
    const { slots, perWorkspace, queue, maxWaitMs, refusals } = this.options;
    const used = this.inUse.get(workspaceId) ?? 0;
    if (used >= perWorkspace) {
      return Promise.reject(new AppError('rate_limited', refusals.workspaceFull(perWorkspace), [], [], FAIR_SLOTS_RETRY_AFTER_SECONDS));
    }
    if (this.held < slots && this.mayHold(workspaceId) && this.nextInTurn() === undefined) {
      this.inUse.set(workspaceId, used + 1);
      return Promise.resolve(this.grant(workspaceId));
    }
    if (this.waiting >= queue) {
      return Promise.reject(new AppError('unavailable', refusals.queueFull(), [], [], FAIR_SLOTS_RETRY_AFTER_SECONDS));
    }
    if (signal?.aborted === true) return Promise.reject(callerGone());
    this.inUse.set(workspaceId, used + 1);
    this.waiting++;
    return new Promise<Release>((resolve, reject) => {
      const leave = (): void => {
        clearTimeout(waiter.timer);
        this.leaveQueue(waiter);
        this.forget(workspaceId);
        reject(callerGone());
      };
      const waiter: Waiter = {
        workspaceId,
        admit: (release) => {
          signal?.removeEventListener('abort', leave);
          resolve(release);
        },
        timer: setTimeout(() => {
          signal?.removeEventListener('abort', leave);
          this.leaveQueue(waiter);
          this.forget(workspaceId);
          // Held back by the workspace's own work (it holds its share of the slots), not by a lack of slots: its 429.
          reject(
            this.mayHold(workspaceId)
              ? unavailable(refusals.waitedTooLong(maxWaitMs))
              : new AppError('rate_limited', refusals.waitedBehindOwn(maxWaitMs), [], [], FAIR_SLOTS_RETRY_AFTER_SECONDS),
          );
        }, maxWaitMs),
      };
      signal?.addEventListener('abort', leave, { once: true });
      const line = this.lines.get(workspaceId);
      if (line === undefined) this.lines.set(workspaceId, [waiter]);
      else line.push(waiter);
      // A free slot another workspace may not take (it holds its share) is this one's at once.
      this.handOver();
    });
  }

  /** Files being read and waiting, per workspace (those with none are absent). */
  inUseByWorkspace(): ReadonlyMap<string, number> {
    return this.inUse;
  }

  /** Takes a slot for `workspaceId` (already counted in `inUse`). */
  private grant(workspaceId: string): Release {
    this.held++;
    this.lastServed.set(workspaceId, ++this.served);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.held--;
      this.forget(workspaceId);
      this.handOver();
    };
  }

  /** Whether the workspace holds fewer slots than its share: its files in here, less those waiting in its line. */
  private mayHold(workspaceId: string): boolean {
    const holding = (this.inUse.get(workspaceId) ?? 0) - (this.lines.get(workspaceId)?.length ?? 0);
    return holding < this.heldCap;
  }

  /** Gives free slots to waiters, each to the waiting workspace served longest ago. */
  private handOver(): void {
    while (this.held < this.options.slots) {
      const next = this.nextInTurn();
      if (next === undefined) return;
      const [workspaceId, line] = next;
      const waiter = line.shift();
      if (line.length === 0) this.lines.delete(workspaceId);
      if (waiter === undefined) continue;
      clearTimeout(waiter.timer);
      this.waiting--;
      waiter.admit(this.grant(workspaceId));
    }
  }

  /**
   * The waiting workspace served longest ago that may hold another slot. At most `queue`
   * workspaces wait, so a scan is cheap. Ties go to the one waiting longest.
   */
  private nextInTurn(): [string, Waiter[]] | undefined {
    let best: [string, Waiter[]] | undefined;
    let bestServed = Infinity;
    for (const [workspaceId, line] of this.lines) {
      if (!this.mayHold(workspaceId)) continue;
      const served = this.lastServed.get(workspaceId) ?? 0;
      if (served < bestServed) {
        best = [workspaceId, line];
        bestServed = served;
      }
    }
    return best;
  }

  private leaveQueue(waiter: Waiter): void {
    const line = this.lines.get(waiter.workspaceId);
    if (line === undefined) return;
    const at = line.indexOf(waiter);
    if (at < 0) return;
    line.splice(at, 1);
    this.waiting--;
    if (line.length === 0) this.lines.delete(waiter.workspaceId);
  }

  private forget(workspaceId: string): void {
    const left = (this.inUse.get(workspaceId) ?? 1) - 1;
    if (left > 0) {
      this.inUse.set(workspaceId, left);
      return;
    }
    // Gone from here: when it comes back, it has had no turn lately.
    this.inUse.delete(workspaceId);
    this.lastServed.delete(workspaceId);
  }
}
