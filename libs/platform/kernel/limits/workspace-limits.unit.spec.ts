import { AppError } from '../errors';
import { workspaceLimitsEnv, WorkspaceQuota } from './workspace-limits';

describe('LORE_WORKSPACE_LIMITS', () => {
  it('reads per-workspace overrides, blank as none', () => {
    const parsed = workspaceLimitsEnv.parse('{"acme": {"memories": 10, "requests_per_minute": 600}, "beta": {}}');
    expect(parsed.get('acme')).toEqual({ memories: 10, requests_per_minute: 600 });
    expect(parsed.get('beta')).toEqual({});
    expect(workspaceLimitsEnv.parse('  ').size).toBe(0);
    expect(workspaceLimitsEnv.parse(undefined).size).toBe(0);
  });

  it.each([
    ['not JSON', '{acme'],
    ['an unknown limit', '{"acme": {"memory": 10}}'],
    ['a negative count', '{"acme": {"memories": -1}}'],
    ['a fraction', '{"acme": {"chunks": 1.5}}'],
    ['a list', '[1]'],
  ])('refuses %s rather than run without the limits an operator set', (_, value) => {
    expect(workspaceLimitsEnv.safeParse(value).success).toBe(false);
  });
});

describe('WorkspaceQuota', () => {
  const overrides = workspaceLimitsEnv.parse('{"small": {"memories": 2}, "free": {"memories": 0}}');
  const quota = (): WorkspaceQuota => new WorkspaceQuota('memories', 'QUOTA_MEMORIES', 100, overrides);

  it('refuses past the workspace limit with a 403 naming the quota, its limit and what to raise', () => {
    const q = quota();
    expect(() => q.check('small', 1)).not.toThrow();
    let error: unknown;
    try {
      q.check('small', 2);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'forbidden', message: expect.stringMatching(/^Workspace quota memories of 2 reached \(2 used\).*QUOTA_MEMORIES/) });
    expect(() => q.check('other', 99)).not.toThrow();
    expect(() => q.check('other', 100)).toThrow(/quota memories of 100 reached/);
    expect(() => q.check('free', 1_000_000)).not.toThrow();
  });

  it('counts afresh near the limit and only every few seconds far from it', async () => {
    const q = quota();
    let counts = 0;
    let used = 0;
    const count = (): Promise<number> => (counts++, Promise.resolve(used));
    for (let i = 0; i < 50; i++) {
      await q.enforce('other', count, 1, 1_000);
      used++;
    }
    expect(counts).toBe(1);
    await q.enforce('other', count, 1, 7_000);
    expect(counts).toBe(2);
    // Past 90 % of 100 every write counts, so the last unit is exact.
    used = 95;
    await q.enforce('other', count, 1, 20_000);
    for (let i = 0; i < 4; i++) {
      used++;
      await q.enforce('other', count, 1, 20_001);
    }
    expect(counts).toBe(7);
    used = 100;
    await expect(q.enforce('other', count, 1, 20_002)).rejects.toThrow(/quota memories of 100 reached/);
    // Unlimited: never counted.
    await q.enforce('free', count);
    expect(counts).toBe(8);
  });

  it('tells at once what enforce decides without a count, noting the write only then', async () => {
    const q = quota();
    expect(q.admitsAtOnce('free')).toBe(true);
    // Nothing counted yet: only a count can tell.
    expect(q.admitsAtOnce('other', 1, 1_000)).toBe(false);
    await q.enforce('other', () => Promise.resolve(10), 1, 1_000);
    expect(q.admitsAtOnce('other', 1, 1_001)).toBe(true);
    // Noted as used: 10 counted + 1 + 1, so 78 more stay under 90 % and the next does not.
    expect(q.admitsAtOnce('other', 78, 1_002)).toBe(true);
    expect(q.admitsAtOnce('other', 1, 1_003)).toBe(false);
    // A refusal to decide notes nothing: the count that follows is enforce's, and is exact.
    await expect(q.enforce('other', () => Promise.resolve(100), 1, 1_004)).rejects.toThrow(/quota memories of 100 reached/);
    // A count older than a few seconds is not trusted.
    await q.enforce('other', () => Promise.resolve(0), 1, 2_000);
    expect(q.admitsAtOnce('other', 1, 60_000)).toBe(false);
  });

  it('does not remember a refusal: the write after a deletion elsewhere is counted again and admitted', async () => {
    const q = quota();
    let used = 100;
    let counts = 0;
    const count = (): Promise<number> => (counts++, Promise.resolve(used));
    await expect(q.enforce('other', count, 1, 1_000)).rejects.toThrow(/quota memories of 100 reached/);
    await expect(q.enforce('other', count, 1, 1_001)).rejects.toThrow(/quota memories of 100 reached/);
    // Another instance of the service (NATS queue group) deleted one: no hook here hears of it.
    used = 99;
    await q.enforce('other', count, 1, 1_002);
    expect(counts).toBe(3);
  });

  it('asks for room for one more unit before work of unknown size, noting nothing', async () => {
    const q = quota();
    let used = 100;
    let counts = 0;
    const count = (): Promise<number> => (counts++, Promise.resolve(used));
    await expect(q.assertRoom('other', count, 1_000)).rejects.toThrow(/quota memories of 100 reached \(100 used\)/);
    used = 99;
    await q.assertRoom('other', count, 1_001);
    await q.assertRoom('small', () => Promise.resolve(1), 1_001);
    await expect(q.assertRoom('small', () => Promise.resolve(2), 1_001)).rejects.toThrow(/quota memories of 2 reached/);
    await q.assertRoom('free', count);
    expect(counts).toBe(2);
    // Far from the limit a recent count answers; what was asked for is not noted as used.
    used = 10;
    await q.assertRoom('other', count, 2_000);
    for (let i = 0; i < 100; i++) await q.assertRoom('other', count, 2_001);
    expect(counts).toBe(3);
    expect(q.admitsAtOnce('other', 80, 2_002)).toBe(true);
  });
});
