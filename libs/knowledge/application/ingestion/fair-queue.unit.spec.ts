import { FairQueue, type Tenant } from './fair-queue';

const tenant = (workspaceId: string, userId = 'u'): Tenant => ({ workspaceId, userId });

function drain(queue: FairQueue): string[] {
  const ids: string[] = [];
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) ids.push(next.id);
  return ids;
}

describe('FairQueue', () => {
  it('takes a workspace with one queued content next, behind 500 of another', () => {
    const queue = new FairQueue();
    for (let i = 0; i < 500; i++) queue.push(`a${i}`, tenant('A'));
    queue.push('b0', tenant('B'));
    expect([queue.shift()?.id, queue.shift()?.id]).toContain('b0');
  });

  it('serves a newcomer at the next pick although the busy workspace has been served all along', () => {
    const queue = new FairQueue();
    for (let i = 0; i < 500; i++) queue.push(`a${i}`, tenant('A'));
    // A has been served for a while when B's content arrives (the workers took some).
    for (let i = 0; i < 10; i++) expect(queue.shift()?.id).toBe(`a${i}`);
    queue.push('b0', tenant('B'));
    expect(queue.shift()).toEqual({ id: 'b0', tenant: tenant('B') });
    expect(queue.shift()?.id).toBe('a10');
  });

  it('alternates between workspaces, then between users inside one, FIFO for one user', () => {
    const queue = new FairQueue();
    for (const id of ['a1', 'a2', 'a3', 'a4']) queue.push(id, tenant('A', 'alice'));
    for (const id of ['m1', 'm2']) queue.push(id, tenant('A', 'mallory'));
    for (const id of ['b1', 'b2', 'b3']) queue.push(id, tenant('B', 'bob'));
    expect(drain(queue)).toEqual(['a1', 'b1', 'm1', 'b2', 'a2', 'b3', 'm2', 'a3', 'a4']);
  });

  it('gives an idle workspace no credit: one that comes back waits its turn like the others', () => {
    const queue = new FairQueue();
    queue.push('b1', tenant('B'));
    expect(queue.shift()?.id).toBe('b1');
    for (let i = 0; i < 3; i++) queue.push(`a${i}`, tenant('A'));
    for (let i = 0; i < 3; i++) queue.push(`c${i}`, tenant('C'));
    for (let i = 0; i < 3; i++) queue.push(`b${i + 2}`, tenant('B'));
    expect(drain(queue)).toEqual(['a0', 'c0', 'b2', 'a1', 'c1', 'b3', 'a2', 'c2', 'b4']);
  });

  it('takes only from the workspaces asked for, keeping the others in place', () => {
    const queue = new FairQueue();
    for (const id of ['a1', 'a2']) queue.push(id, tenant('A'));
    queue.push('b1', tenant('B'));
    expect(queue.shift((workspaceId) => workspaceId !== 'A')?.id).toBe('b1');
    expect(queue.shift((workspaceId) => workspaceId !== 'A')).toBeUndefined();
    expect(drain(queue)).toEqual(['a1', 'a2']);
  });

  it('queues an id once, keeping its place, and reports the depth per workspace', () => {
    const queue = new FairQueue();
    expect(queue.push('a1', tenant('A'))).toBe(true);
    expect(queue.push('a2', tenant('A', 'other'))).toBe(true);
    expect(queue.push('a1', tenant('B'))).toBe(false);
    queue.push('b1', tenant('B'));
    expect(queue.size).toBe(3);
    expect(queue.has('a1')).toBe(true);
    expect(queue.depthByWorkspace()).toEqual(new Map([['A', 2], ['B', 1]]));
    expect(queue.shift()).toEqual({ id: 'a1', tenant: tenant('A') });
    expect(queue.has('a1')).toBe(false);
    queue.shift();
    expect(queue.depthByWorkspace()).toEqual(new Map([['A', 1]]));
    queue.clear();
    expect(queue.size).toBe(0);
    expect(queue.shift()).toBeUndefined();
    expect(queue.depthByWorkspace()).toEqual(new Map());
  });
});
