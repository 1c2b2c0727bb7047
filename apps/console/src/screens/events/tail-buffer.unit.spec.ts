import { describe, expect, it } from '@jest/globals';
import type { StreamedEvent } from '@lore/client';
import { appendToTail, eventSubject, filterList, TAIL_LIMIT } from './tail-buffer';

describe('the live tail', () => {
  it('keeps the newest events first and at most TAIL_LIMIT of them', () => {
    let lines = appendToTail([], { kind: 'gap', after: '1', message: 'expired' }, new Date(0));
    for (let i = 0; i < TAIL_LIMIT + 5; i++) lines = appendToTail(lines, { kind: 'event', id: String(i), event: {} } as StreamedEvent, new Date(i));
    expect(lines).toHaveLength(TAIL_LIMIT);
    expect(lines[0]).toMatchObject({ kind: 'event', id: String(TAIL_LIMIT + 4) });
  });

  it('names an event by its own ids and reads comma-separated filters', () => {
    expect(eventSubject({ type: 'memory.created', event_id: 'e', occurred_at: 't', workspace_id: 'w', memory_id: 'm1', user_id: 'u', nested: {} })).toBe('memory_id=m1 user_id=u');
    expect(filterList(' memory, ,conversation ')).toEqual(['memory', 'conversation']);
  });
});
