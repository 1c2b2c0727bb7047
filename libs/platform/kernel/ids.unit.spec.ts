import { newEventId } from './ids';

describe('event ids', () => {
  const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

  it('are version 7 UUIDs carrying their millisecond', () => {
    const at = Date.UTC(2026, 10, 27, 6, 30);
    const id = newEventId(at);
    expect(id).toMatch(UUID_V7);
    expect(parseInt(id.replace(/-/g, '').slice(0, 12), 16)).toBe(at);
  });

  it('sort by time (later milliseconds after earlier ones), so index inserts stay together', () => {
    const ids = [0, 1, 2, 1_000, 86_400_000].map((ms) => newEventId(Date.UTC(2026, 0, 1) + ms));
    expect([...ids].sort()).toEqual(ids);
  });

  it('differ within one millisecond (74 random bits)', () => {
    const at = Date.now();
    const ids = new Set(Array.from({ length: 10_000 }, () => newEventId(at)));
    expect(ids.size).toBe(10_000);
    for (const id of ids) expect(id).toMatch(UUID_V7);
  });
});
