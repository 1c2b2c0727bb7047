import { deciderSpec } from '@lore/platform/testing';
import { fold } from '@lore/platform/kernel';
import { contentDecider, type LiveContent } from './content.decider';
import type { ContentEvent } from './content.events';

const T0 = '2025-01-01T00:00:00.000Z';
const access = { workspaceId: 'ws_1', collections: null } as const;
const spec = deciderSpec(contentDecider);

type Of<T extends ContentEvent['type']> = Extract<ContentEvent, { type: T }>;
const addedInParts = (parts: number, first: string, sizeBytes: number): Of<'knowledge.ContentAdded'> => ({
  type: 'knowledge.ContentAdded',
  data: { contentId: 'cnt_1', collectionId: 'col_1', workspaceId: 'ws_1', name: 'big', source: null, mimeType: 'text/plain', metadata: {}, text: first, sizeBytes, parts, createdBy: 'user:a', createdAt: T0 },
});
const appended = (part: number, text: string): Of<'knowledge.ContentTextAppended'> => ({ type: 'knowledge.ContentTextAppended', data: { contentId: 'cnt_1', part, text, bytes: text.length } });
const live = (events: readonly ContentEvent[]): LiveContent => fold(contentDecider, events) as LiveContent;

/** A long text arrives in parts; nothing processes it before the last one. */
describe('content decider: text in parts', () => {
  it('accepts the parts in order and becomes processable with the last one, holding the whole text', () => {
    spec.given([addedInParts(3, 'aa', 6)]).when({ kind: 'append-text', access, part: 1, text: 'bb', bytes: 2 }).then([appended(1, 'bb')]);
    expect(live([addedInParts(3, 'aa', 6), appended(1, 'bb')]).phase).toBe('uploading');
    const whole = live([addedInParts(3, 'aa', 6), appended(1, 'bb'), appended(2, 'cc')]);
    expect({ phase: whole.phase, parts: whole.textParts }).toEqual({ phase: 'new', parts: ['aa', 'bb', 'cc'] });
  });

  it('refuses a part out of order, a part too many, and parts that do not add up to the size announced', () => {
    spec.given([addedInParts(3, 'aa', 6)]).when({ kind: 'append-text', access, part: 2, text: 'cc', bytes: 2 }).thenThrows('conflict', 'expected part 1');
    spec.given([addedInParts(2, 'aa', 4), appended(1, 'bb')]).when({ kind: 'append-text', access, part: 2, text: 'cc', bytes: 2 }).thenThrows('conflict');
    spec.given([addedInParts(2, 'aa', 6)]).when({ kind: 'append-text', access, part: 1, text: 'bb', bytes: 2 }).thenThrows('conflict', 'not the 6 announced');
    spec.given([addedInParts(2, 'aa', 3)]).when({ kind: 'append-text', access, part: 1, text: 'bb', bytes: 2 }).thenThrows('conflict');
  });

  it('counts sealed parts by the lengths measured before sealing, and plain parts of older events by their text', () => {
    const sealed = (id: string) => ({ sealed: `key_1:v1.${id}` });
    const sealedFirst: Of<'knowledge.ContentAdded'> = { ...addedInParts(2, 'x', 6), data: { ...addedInParts(2, 'x', 6).data, text: sealed('a'), textBytes: 4 } };
    spec.given([sealedFirst]).when({ kind: 'append-text', access, part: 1, text: sealed('b'), bytes: 2 }).then([{ type: 'knowledge.ContentTextAppended', data: { contentId: 'cnt_1', part: 1, text: sealed('b'), bytes: 2 } }]);
    spec.given([sealedFirst]).when({ kind: 'append-text', access, part: 1, text: sealed('b'), bytes: 3 }).thenThrows('conflict', 'not the 6 announced');
    const plainOld: Of<'knowledge.ContentTextAppended'> = { type: 'knowledge.ContentTextAppended', data: { contentId: 'cnt_1', part: 1, text: 'bb' } };
    const whole = live([addedInParts(3, 'aa', 6), plainOld]);
    spec.given([addedInParts(3, 'aa', 6), plainOld]).when({ kind: 'append-text', access, part: 2, text: 'ccc', bytes: 3 }).thenThrows('conflict', 'not the 6 announced');
    expect(whole.receivedBytes).toBe(4);
  });

  it('is not started by a worker while parts are missing', () => {
    spec
      .given([addedInParts(2, 'aa', 4)])
      .when({ kind: 'start', leaseId: 'l', leaseUntil: T0, chunkSize: 64, chunkOverlap: 0, embedding: { provider: 'p', model: 'm', dimensions: 2, distance: 'cosine', maxInputTokens: 64, index: 'i' }, maxAttempts: 3, at: T0 })
      .thenNothingHappened();
  });

  it('hides the content from another workspace (not found)', () => {
    spec.given([addedInParts(2, 'aa', 4)]).when({ kind: 'append-text', access: { workspaceId: 'other', collections: null }, part: 1, text: 'bb', bytes: 2 }).thenThrows('not_found');
  });
});
