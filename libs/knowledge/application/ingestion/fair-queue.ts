/** Whose work an item is: the workspace, then the user inside it, that fairness is about. */
export interface Tenant {
  readonly workspaceId: string;
  readonly userId: string;
}

/**
 * One level of start-time fair queuing: each active flow has a virtual start time; the flow
 * with the smallest goes next and its time advances by one. A flow that turns active starts at
 * the virtual time of the latest pick, never behind it, so a newcomer goes ahead of a flow that
 * has been served all along instead of waiting for its backlog (plain round robin, where the
 * newcomer joins the end of the ring, still made it wait one more pick of the busy flow), and
 * a flow that was idle cannot bank credit. Ties go to the flow that became active first.
 */
class FairLevel<K, V> {
  private readonly flows = new Map<K, { start: number; readonly since: number; readonly items: V }>();
  private virtualTime = 0;
  private activations = 0;

  get(key: K): V | undefined {
    return this.flows.get(key)?.items;
  }

  /** Makes `key` active with `items` (its queue, owned by the caller). */
  activate(key: K, items: V): void {
    this.flows.set(key, { start: this.virtualTime, since: this.activations++, items });
  }

  /** The flow to serve now, among those `eligible`: its start advances past this pick. */
  pick(eligible: (key: K) => boolean = () => true): [K, V] | undefined {
    let best: [K, { start: number; since: number; items: V }] | undefined;
    for (const entry of this.flows) {
      const [key, flow] = entry;
      if (!eligible(key)) continue;
      if (best === undefined || flow.start < best[1].start || (flow.start === best[1].start && flow.since < best[1].since)) best = entry;
    }
    if (best === undefined) return undefined;
    const [key, flow] = best;
    this.virtualTime = flow.start;
    flow.start += 1;
    return [key, flow.items];
  }

  deactivate(key: K): void {
    this.flows.delete(key);
  }

  entries(): IterableIterator<[K, { readonly items: V }]> {
    return this.flows.entries();
  }

  clear(): void {
    this.flows.clear();
    this.virtualTime = 0;
  }
}

type UserQueues = { readonly users: FairLevel<string, string[]>; depth: number };

/**
 * The ingestion workers' queue of content ids: fair across workspaces, then across users
 * within a workspace, FIFO for one user. With a backlog of 500 in workspace A, one content of
 * workspace B is the next taken; two users of one workspace alternate. Each id is queued once.
 * Every item counts as one turn: an attempt's cost is not known when it is queued (a reprocess
 * or a retry does not say its size), and what matters to a waiting tenant is the next free
 * worker, which it gets.
 */
export class FairQueue {
  private readonly workspaces = new FairLevel<string, UserQueues>();
  private readonly queued = new Set<string>();

  get size(): number {
    return this.queued.size;
  }

  has(id: string): boolean {
    return this.queued.has(id);
  }

  /** False when `id` is queued already (it keeps its place and its tenant). */
  push(id: string, tenant: Tenant): boolean {
    if (this.queued.has(id)) return false;
    this.queued.add(id);
    let workspace = this.workspaces.get(tenant.workspaceId);
    if (workspace === undefined) {
      workspace = { users: new FairLevel<string, string[]>(), depth: 0 };
      this.workspaces.activate(tenant.workspaceId, workspace);
    }
    workspace.depth++;
    const queue = workspace.users.get(tenant.userId);
    if (queue === undefined) workspace.users.activate(tenant.userId, [id]);
    else queue.push(id);
    return true;
  }

  /**
   * The next id to run and whose it is, from the workspaces `eligible` (default: all);
   * undefined when none of them has anything queued.
   */
  shift(eligible?: (workspaceId: string) => boolean): { readonly id: string; readonly tenant: Tenant } | undefined {
    const pickedWorkspace = this.workspaces.pick(eligible);
    if (pickedWorkspace === undefined) return undefined;
    const [workspaceId, workspace] = pickedWorkspace;
    const pickedUser = workspace.users.pick();
    if (pickedUser === undefined) throw new Error(`fair queue: workspace ${workspaceId} is active without queued work`);
    const [userId, queue] = pickedUser;
    const id = queue.shift();
    if (id === undefined) throw new Error(`fair queue: user ${userId} of workspace ${workspaceId} is active without queued work`);
    if (queue.length === 0) workspace.users.deactivate(userId);
    if (--workspace.depth === 0) this.workspaces.deactivate(workspaceId);
    this.queued.delete(id);
    return { id, tenant: { workspaceId, userId } };
  }

  /** Queued ids per workspace (workspaces with none are absent): the queue-depth gauge. */
  depthByWorkspace(): Map<string, number> {
    const depths = new Map<string, number>();
    for (const [workspaceId, { items }] of this.workspaces.entries()) depths.set(workspaceId, items.depth);
    return depths;
  }

  clear(): void {
    this.workspaces.clear();
    this.queued.clear();
  }
}
