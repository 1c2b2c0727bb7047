import { AppError } from './errors';
import { FairSlots, type FairSlotsOptions, type Release } from './fair-slots';

/** The slots alone (their users, the extraction pool and the JSON body reader, have their own suites): who gets a freed slot, who is refused, and how. */
const OPTIONS: FairSlotsOptions = {
  slots: 1,
  perWorkspace: 10,
  queue: 10,
  maxWaitMs: 10_000,
  refusals: {
    workspaceFull: (perWorkspace) => `workspace full at ${perWorkspace}`,
    queueFull: () => 'queue full',
    waitedBehindOwn: (maxWaitMs) => `behind its own for ${maxWaitMs} ms`,
    waitedTooLong: (maxWaitMs) => `no slot in ${maxWaitMs} ms`,
  },
};

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const error: unknown = await promise.then(
    () => new Error('expected a refusal'),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

describe('FairSlots', () => {
  it('gives a freed slot to the workspace served longest ago, not to the first burst', async () => {
    const slots = new FairSlots(OPTIONS);
    const order: string[] = [];
    const first = await slots.acquire('ws_a');
    const waiting = ['ws_a', 'ws_a', 'ws_a', 'ws_b', 'ws_c', 'ws_b'].map((ws, i) =>
      slots.acquire(ws).then((release) => {
        order.push(`${ws}#${i}`);
        release();
      }),
    );
    first();
    await Promise.all(waiting);
    // A had the slot when the others came: B and C go first, then the three take turns.
    expect(order).toEqual(['ws_b#3', 'ws_c#4', 'ws_a#0', 'ws_b#5', 'ws_a#1', 'ws_a#2']);
  });

  it('refuses a workspace beyond its cap with 429 and Retry-After, while others still get in', async () => {
    const slots = new FairSlots({ ...OPTIONS, slots: 2, perWorkspace: 2, heldPerWorkspace: 2 });
    const held = [await slots.acquire('ws_a'), await slots.acquire('ws_a')];
    const error = await refusal(slots.acquire('ws_a'));
    expect(error.code).toBe('rate_limited');
    expect(error.message).toBe('workspace full at 2');
    expect(error.retryAfterSeconds).toBe(1);
    // Another workspace waits for a slot instead, and gets the first that frees.
    const other = slots.acquire('ws_b');
    held[0]?.();
    (await other)();
    // A's count went down with its release: it may send another file.
    const again = await slots.acquire('ws_a');
    again();
    held[1]?.();
    expect(slots.inUseByWorkspace().size).toBe(0);
  });

  it('keeps a slot free for other workspaces: one workspace holds all but one, however many files it has waiting', async () => {
    const slots = new FairSlots({ ...OPTIONS, slots: 2, perWorkspace: 4 });
    const first = await slots.acquire('ws_a');
    let secondIn = false;
    const second = slots.acquire('ws_a').then((release) => {
      secondIn = true;
      return release;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(secondIn).toBe(false); // a slot is free, but it is the one kept for others
    // Another workspace's file takes it at once, without waiting for A's slow one.
    const other = await slots.acquire('ws_b');
    // When A's first file is done, A's next one gets that slot.
    first();
    (await second)();
    other();
    expect(slots.inUseByWorkspace().size).toBe(0);
  });

  it('refuses with 429, not 503, a file that waited out its bound behind its own workspace\'s files while a reader stood free', async () => {
    const slots = new FairSlots({ ...OPTIONS, slots: 2, perWorkspace: 4, maxWaitMs: 50 });
    const held = await slots.acquire('ws_a');
    const error = await refusal(slots.acquire('ws_a'));
    expect(error.code).toBe('rate_limited');
    expect(error.message).toBe('behind its own for 50 ms');
    expect(error.retryAfterSeconds).toBe(1);
    held();
    expect(slots.inUseByWorkspace().size).toBe(0);
  });

  it('refuses a file with 503 when it waits longer than the bound, and one that finds the queue full at once', async () => {
    const slots = new FairSlots({ ...OPTIONS, queue: 1, maxWaitMs: 100 });
    const held = await slots.acquire('ws_a');
    const started = Date.now();
    const waiter = slots.acquire('ws_b');
    const full = await refusal(slots.acquire('ws_c'));
    expect(full.code).toBe('unavailable');
    expect(full.message).toBe('queue full');
    const late = await refusal(waiter);
    expect(late.code).toBe('unavailable');
    expect(late.message).toBe('no slot in 100 ms');
    expect(Date.now() - started).toBeLessThan(2_000);
    // The one that gave up holds nothing: the slot goes to the next comer once freed.
    expect([...slots.inUseByWorkspace().keys()]).toEqual(['ws_a']);
    held();
    held(); // a second release changes nothing
    const next: Release = await slots.acquire('ws_c');
    const after = slots.acquire('ws_d');
    next();
    (await after)();
    expect(slots.inUseByWorkspace().size).toBe(0);
  });

  it('lets a waiter whose caller went away leave at once: its place in the queue and in its workspace\'s share are free again', async () => {
    const slots = new FairSlots({ ...OPTIONS, queue: 1, perWorkspace: 2 });
    const held = await slots.acquire('ws_a');
    const gone = new AbortController();
    const waiter = slots.acquire('ws_b', gone.signal);
    expect((await refusal(slots.acquire('ws_c'))).message).toBe('queue full');
    gone.abort();
    expect((await refusal(waiter)).code).toBe('unavailable');
    expect([...slots.inUseByWorkspace().keys()]).toEqual(['ws_a']);
    // Its place is someone else's now, and the slot, once freed, goes to that one.
    const next = slots.acquire('ws_c');
    held();
    (await next)();
    expect(slots.inUseByWorkspace().size).toBe(0);
    // Already gone when it asks: refused without waiting.
    const already = new AbortController();
    already.abort();
    const blocker = await slots.acquire('ws_a');
    expect((await refusal(slots.acquire('ws_b', already.signal))).code).toBe('unavailable');
    blocker();
    expect(slots.inUseByWorkspace().size).toBe(0);
  });
});
