import type { EventStore } from '@lore/platform/event-store/port';
import { AggregateStateCache } from './aggregate-state-cache';

describe('AggregateStateCache bounded by weight', () => {
  const store = {} as EventStore;
  const entry = (text: string, revision = 0) => ({ state: text, revision, store });

  it('evicts the least recently used states once they weigh more than maxWeight together, always keeping the newest', () => {
    const cache = new AggregateStateCache<string>({ maxEntries: 10, maxWeight: 10, weigh: (text) => text.length });
    cache.set('a', entry('aaaa'));
    cache.set('b', entry('bbbb'));
    cache.get('a'); // a is now the most recently used
    cache.set('c', entry('cccc')); // 12 > 10: b goes
    expect([cache.get('a')?.state, cache.get('b'), cache.get('c')?.state]).toEqual(['aaaa', undefined, 'cccc']);
    cache.set('a', entry('a', 1)); // replacing an entry replaces its weight: 5 in all
    cache.set('d', entry('dddd'));
    expect(cache.size).toBe(3);
    cache.set('huge', entry('x'.repeat(50))); // alone over the bound: kept, everything older goes
    expect([cache.size, cache.get('huge')?.revision]).toEqual([1, 0]);
    cache.delete('huge');
    cache.set('e', entry('eeeeeeeeee'));
    expect(cache.size).toBe(1);
  });
});
