import { describe, expect, it } from '@jest/globals';
import { addReply, EMPTY_TOTALS } from './audit-report';

const verdict = (context: string, streams: number, broken: string[] = [], truncated = false) => ({
  context, streams, events: streams * 2, unchained: 0, unchained_streams: 0, deleted: 0, truncated,
  broken: broken.map((stream_id) => ({ stream_id, first_bad_revision: 0, reason: 'content does not match its hash' })),
});

describe('adding up the replies of one verify run', () => {
  it('sums each context across pages, keeps every broken stream, and is not ok once one page was not', () => {
    const first = addReply(EMPTY_TOTALS, { ok: false, truncated: true, next_cursor: 'c', contexts: [verdict('memory', 2, ['memory-a'], true), verdict('keys', 1)] });
    const both = addReply(first, { ok: true, truncated: false, next_cursor: null, contexts: [verdict('memory', 1)] });
    expect(both.ok).toBe(false);
    expect(both.streams).toBe(4);
    expect(both.contexts).toEqual([
      { ...verdict('memory', 3, ['memory-a']), events: 6 },
      verdict('keys', 1),
    ]);
  });
});
