import { deciderSpec } from '@lore/platform/testing';
import { fold } from '@lore/platform/kernel';
import { contentDecider, LeaseLostError, startable, type ContentCommand, type ContentState, type LiveContent } from './content.decider';
import type { ChunkPosition, ContentEvent } from './content.events';
import { chunkIdOf, contentIdOfChunk } from './content.events';
import type { EmbeddingModel } from './collection.events';

const T0 = '2025-01-01T00:00:00.000Z';
const T1 = '2025-01-01T00:01:00.000Z';
const T2 = '2025-01-01T00:02:00.000Z';
const T3 = '2025-01-01T00:03:00.000Z';
const model: EmbeddingModel = { provider: 'local', model: 'm', dimensions: 4, distance: 'cosine', maxInputTokens: 256, index: 'local_m_4' };
const access = { workspaceId: 'ws_1', collections: null } as const;
const base = { contentId: 'cnt_1', collectionId: 'col_1' } as const;

type Of<T extends ContentEvent['type']> = Extract<ContentEvent, { type: T }>;

const added: Of<'knowledge.ContentAdded'> = {
  type: 'knowledge.ContentAdded',
  data: { ...base, workspaceId: 'ws_1', name: 'doc', source: null, mimeType: 'text/plain', metadata: { k: 1 }, text: 'hello world', sizeBytes: 11, createdBy: 'user:a', createdAt: T0 },
};
const started = (attempt: number, leaseId: string, leaseUntil: string, at = T0): Of<'knowledge.ContentProcessingStarted'> => ({
  type: 'knowledge.ContentProcessingStarted',
  data: { ...base, attempt, leaseId, leaseUntil, chunkSize: 64, chunkOverlap: 8, embedding: model, startedAt: at },
});
const chunk = (index: number): ChunkPosition => ({ chunkId: chunkIdOf('cnt_1', index), chunkIndex: index, text: `c${index}`, start: index, end: index + 1, tokens: 1, vector: 'AAAA' });
const chunksAdded = (attempt: number, ...indexes: number[]): Of<'knowledge.ContentChunksAdded'> => ({
  type: 'knowledge.ContentChunksAdded',
  data: {
    ...base,
    workspaceId: 'ws_1',
    attempt,
    index: { name: 'local_m_4', dimensions: 4, distance: 'cosine' },
    contentName: 'doc',
    source: null,
    metadata: { k: 1 },
    chunks: indexes.map(chunk),
    addedAt: T1,
  },
});
const completed = (attempt: number, chunkCount: number): Of<'knowledge.ContentProcessingCompleted'> => ({
  type: 'knowledge.ContentProcessingCompleted',
  data: { ...base, attempt, chunkCount, completedAt: T1 },
});
const failed = (attempt: number, error: string, retryAt: string | null, at = T1): Of<'knowledge.ContentProcessingFailed'> => ({
  type: 'knowledge.ContentProcessingFailed',
  data: { ...base, attempt, error, retryAt, failedAt: at },
});
const reprocessed: Of<'knowledge.ContentReprocessRequested'> = { type: 'knowledge.ContentReprocessRequested', data: { ...base, requestedBy: 'user:a', requestedAt: T2 } };
const deleted: Of<'knowledge.ContentDeleted'> = { type: 'knowledge.ContentDeleted', data: { ...base, workspaceId: 'ws_1', cause: 'request', deletedAt: T2 } };

const start = (over: Partial<Extract<ContentCommand, { kind: 'start' }>> = {}): ContentCommand => ({
  kind: 'start',
  leaseId: 'lease_new',
  leaseUntil: T3,
  chunkSize: 64,
  chunkOverlap: 8,
  embedding: model,
  maxAttempts: 3,
  at: T1,
  ...over,
});

const spec = deciderSpec(contentDecider);
const stateOf = (events: readonly ContentEvent[]): ContentState => fold(contentDecider, events);
const live = (events: readonly ContentEvent[]): LiveContent => {
  const state = stateOf(events);
  if (state.status !== 'active') throw new Error('not live');
  return state;
};

/** Processing, held by `lease_1` until T2 (a minute after the "now" of most commands). */
const processing = [added, started(1, 'lease_1', T2)];
const completedWithChunks = [...processing, chunksAdded(1, 0, 1), completed(1, 2)];

describe('contentDecider', () => {
  describe('add', () => {
    it('adds an absent content as new, with no attempt yet', () => {
      const state = spec.given([]).when({ kind: 'add', event: added.data }).then([added]);
      expect(state).toMatchObject({ status: 'active', phase: 'new', attempt: 0, attemptsSinceRequest: 0, lease: null, retryAt: null });
    });

    it('conflicts when it exists', () => {
      spec.given([added]).when({ kind: 'add', event: added.data }).thenThrows('conflict', /cnt_1/);
    });
  });

  describe('start: only when new, when a retry is due, or when the lease lapsed', () => {
    it('claims a new content: attempt 1 under the new lease', () => {
      const state = spec.given([added]).when(start()).then([started(1, 'lease_new', T3, T1)]);
      expect(state).toMatchObject({ phase: 'processing', attempt: 1, attemptsSinceRequest: 1, lease: { leaseId: 'lease_new', until: T3 } });
    });

    it('does not take a lease that is still held', () => {
      spec.given(processing).when(start({ at: T1 })).thenNothingHappened();
    });

    it('takes over a lapsed lease (its worker died) as the next attempt, dropping the dead attempt\'s chunks', () => {
      const state = spec.given([...processing, chunksAdded(1, 0)]).when(start({ at: T2, leaseUntil: T3 })).then([started(2, 'lease_new', T3, T2)]);
      expect(state).toMatchObject({ phase: 'processing', attempt: 2, attemptsSinceRequest: 2, lease: { leaseId: 'lease_new' } });
      expect((state as LiveContent).chunks.size).toBe(0);
    });

    it('honours renewals: a renewed lease is held until its new end', () => {
      const renewed: Of<'knowledge.ContentLeaseRenewed'> = { type: 'knowledge.ContentLeaseRenewed', data: { contentId: 'cnt_1', leaseId: 'lease_1', leaseUntil: T3 } };
      spec.given([...processing, renewed]).when(start({ at: T2 })).thenNothingHappened();
      // A renewal by a lease that is no longer the holder changes nothing.
      const stale: Of<'knowledge.ContentLeaseRenewed'> = { ...renewed, data: { ...renewed.data, leaseId: 'lease_0' } };
      spec.given([...processing, stale]).when(start({ at: T2 })).then([started(2, 'lease_new', T3, T2)]);
    });

    it('waits for a scheduled retry, then claims it', () => {
      const waiting = [...processing, failed(1, 'busy', T2)];
      expect(live(waiting).phase).toBe('waiting');
      spec.given(waiting).when(start({ at: T1 })).thenNothingHappened();
      spec.given(waiting).when(start({ at: T2 })).then([started(2, 'lease_new', T3, T2)]);
    });

    it.each([
      ['completed', completedWithChunks],
      ['failed', [...processing, failed(1, 'bad input', null)]],
      ['deleted', [added, deleted]],
      ['absent', []],
    ] as const)('never starts a %s content', (_what, given) => {
      spec.given(given).when(start({ at: T3 })).thenNothingHappened();
    });

    it('turns a lapsed lease into failed once the attempts are used up, saying why', () => {
      const thirdAttempt = [added, started(1, 'l1', T1), started(2, 'l2', T1), started(3, 'l3', T1)];
      const state = spec.given(thirdAttempt).when(start({ at: T2, maxAttempts: 3 })).then([
        failed(3, 'Processing was interrupted 3 times (the worker stopped before finishing, e.g. the service was killed); reprocess to try again', null, T2),
      ]);
      expect(state).toMatchObject({ phase: 'failed', lease: null, retryAt: null });
      // Under a larger cap the same state is simply taken over.
      spec.given(thirdAttempt).when(start({ at: T2, maxAttempts: 4 })).then([started(4, 'lease_new', T3, T2)]);
    });

    it('counts the cap from the last reprocess, not from the upload', () => {
      const afterReprocess = [added, started(1, 'l1', T1), started(2, 'l2', T1), failed(2, 'x', null), reprocessed, started(3, 'l3', T1)];
      expect(live(afterReprocess)).toMatchObject({ attempt: 3, attemptsSinceRequest: 1 });
      spec.given(afterReprocess).when(start({ at: T2, maxAttempts: 2 })).then([started(4, 'lease_new', T3, T2)]);
    });

    it('startable() agrees with decide', () => {
      expect(startable(live([added]), T0)).toBe(true);
      expect(startable(live(processing), T1)).toBe(false);
      expect(startable(live(processing), T2)).toBe(true); // the lease ends at T2: lapsed
      expect(startable(live(completedWithChunks), T3)).toBe(false);
    });
  });

  describe('the lease guards every step of an attempt', () => {
    const steps: ReadonlyArray<readonly [string, (leaseId: string) => ContentCommand]> = [
      ['renew', (leaseId) => ({ kind: 'renew', leaseId, leaseUntil: T3 })],
      ['add-chunks', (leaseId) => ({ kind: 'add-chunks', leaseId, index: { name: 'local_m_4', dimensions: 4, distance: 'cosine' }, chunks: [chunk(0)], at: T1 })],
      ['complete', (leaseId) => ({ kind: 'complete', leaseId, at: T1 })],
      ['fail', (leaseId) => ({ kind: 'fail', leaseId, error: 'x', retryAt: null, at: T1 })],
    ];
    const lost: ReadonlyArray<readonly [string, readonly ContentEvent[]]> = [
      ['another worker took over', [...processing, started(2, 'lease_2', T3)]],
      ['the content was deleted', [...processing, deleted]],
      ['the content was reprocessed', [...processing, reprocessed]],
      ['the attempt already failed', [...processing, failed(1, 'x', null)]],
      ['the attempt already completed', completedWithChunks],
      ['the content never existed', []],
    ];

    const cases = steps.flatMap(([step, command]) => [
      ...lost.map(([why, given]) => [step, why, command, given] as const),
      [step, 'the lease is someone else\'s', (leaseId: string) => command(`${leaseId}_other`), processing] as const,
    ]);
    it.each(cases)('%s is refused with LeaseLostError when %s', (_step, _why, command, given) => {
      expect(() => contentDecider.decide(command('lease_1'), stateOf(given))).toThrow(LeaseLostError);
    });

    it('renews for the holder', () => {
      spec.given(processing).when({ kind: 'renew', leaseId: 'lease_1', leaseUntil: T3 }).then([
        { type: 'knowledge.ContentLeaseRenewed', data: { contentId: 'cnt_1', leaseId: 'lease_1', leaseUntil: T3 } },
      ]);
    });

    it('records chunks for the holder, with the content\'s name, source and metadata', () => {
      const state = spec
        .given(processing)
        .when({ kind: 'add-chunks', leaseId: 'lease_1', index: { name: 'local_m_4', dimensions: 4, distance: 'cosine' }, chunks: [chunk(0), chunk(1)], at: T1 })
        .then([chunksAdded(1, 0, 1)]);
      expect([...(state as LiveContent).chunks.entries()]).toEqual([
        ['cnt_1_c0', 0],
        ['cnt_1_c1', 1],
      ]);
    });

    it('completes with the number of distinct chunks recorded (a re-sent batch is not counted twice)', () => {
      const state = spec.given([...processing, chunksAdded(1, 0, 1), chunksAdded(1, 1, 2)]).when({ kind: 'complete', leaseId: 'lease_1', at: T1 }).then([completed(1, 3)]);
      expect(state).toMatchObject({ phase: 'completed', lease: null });
    });

    it('the last batch completes in the same append, counting the chunks recorded before and in it once each', () => {
      const state = spec
        .given([...processing, chunksAdded(1, 0, 1)])
        .when({ kind: 'add-chunks', leaseId: 'lease_1', index: { name: 'local_m_4', dimensions: 4, distance: 'cosine' }, chunks: [chunk(1), chunk(2)], at: T1, last: true })
        .then([chunksAdded(1, 1, 2), completed(1, 3)]);
      expect(state).toMatchObject({ phase: 'completed', lease: null });
      expect(() =>
        contentDecider.decide({ kind: 'add-chunks', leaseId: 'lease_1', index: { name: 'local_m_4', dimensions: 4, distance: 'cosine' }, chunks: [chunk(0)], at: T1, last: true }, stateOf(completedWithChunks)),
      ).toThrow(LeaseLostError);
    });

    it('fails for good, or schedules a retry (shown as processing, phase waiting)', () => {
      spec.given(processing).when({ kind: 'fail', leaseId: 'lease_1', error: 'bad', retryAt: null, at: T1 }).then([failed(1, 'bad', null)]);
      const waiting = spec.given(processing).when({ kind: 'fail', leaseId: 'lease_1', error: 'busy', retryAt: T2, at: T1 }).then([failed(1, 'busy', T2)]);
      expect(waiting).toMatchObject({ phase: 'waiting', lease: null, retryAt: T2 });
    });
  });

  describe('original file', () => {
    const file = { name: 'doc.pdf', contentType: 'application/pdf', sizeBytes: 600_000, parts: 2 };
    const withOriginal: Of<'knowledge.ContentAdded'> = { ...added, data: { ...added.data, original: file } };
    const kept: Of<'knowledge.ContentOriginalKept'> = { type: 'knowledge.ContentOriginalKept', data: { contentId: 'cnt_1', file, keptAt: T1 } };

    it('is kept once, then discarded once by retention', () => {
      const state = spec.given([withOriginal]).when({ kind: 'keep-original', access, at: T1 }).then([kept]);
      expect((state as LiveContent).original).toEqual({ file, state: 'kept' });
      spec.given([withOriginal, kept]).when({ kind: 'keep-original', access, at: T2 }).thenNothingHappened();
      const discarded = spec
        .given([withOriginal, kept])
        .when({ kind: 'discard-original', at: T2 })
        .then([{ type: 'knowledge.ContentOriginalDiscarded', data: { contentId: 'cnt_1', reason: 'retention', discardedAt: T2 } }]);
      expect((discarded as LiveContent).original).toBeNull();
      spec.given([added]).when({ kind: 'discard-original', at: T2 }).thenNothingHappened();
    });

    it('refuses to keep what was never declared, and hides it from another workspace', () => {
      spec.given([added]).when({ kind: 'keep-original', access, at: T1 }).thenThrows('conflict', 'no original');
      spec.given([withOriginal]).when({ kind: 'keep-original', access: { workspaceId: 'ws_2', collections: null }, at: T1 }).thenThrows('not_found');
    });

    it('reprocesses from a text extracted again, which replaces the stored one (in parts), even on a new content', () => {
      const text = { first: { sealed: 'dk_1:v1.a.b.c' }, firstBytes: 5, sizeBytes: 9, parts: 2 };
      const state = spec.given([added]).when({ kind: 'reprocess', access, requestedBy: 'user:a', at: T2, text }).then([{ ...reprocessed, data: { ...reprocessed.data, text } }]);
      expect(state).toMatchObject({ phase: 'uploading', textParts: [text.first], receivedBytes: 5, sizeBytes: 9, partsMissing: 1 });
      spec.given([{ ...added, data: { ...added.data, parts: 2, sizeBytes: 20 } }]).when({ kind: 'reprocess', access, requestedBy: 'user:a', at: T2 }).thenThrows('conflict', 'still arriving');
    });
  });

  describe('reprocess', () => {
    it.each([
      ['completed', completedWithChunks],
      ['failed', [...processing, failed(1, 'x', null)]],
      ['processing (its worker loses the lease)', processing],
      ['waiting for a retry', [...processing, failed(1, 'busy', T2)]],
    ] as const)('resets a %s content to new, attempts since request to 0', (_what, given) => {
      const state = spec.given(given).when({ kind: 'reprocess', access, requestedBy: 'user:a', at: T2 }).then([reprocessed]);
      expect(state).toMatchObject({ phase: 'new', lease: null, retryAt: null, attemptsSinceRequest: 0, attempt: 1 });
      expect(startable(state as LiveContent, T2)).toBe(true);
    });

    it('is a no-op on a content not started yet', () => {
      spec.given([added]).when({ kind: 'reprocess', access, requestedBy: 'user:a', at: T2 }).thenNothingHappened();
    });

    it.each([
      ['another workspace', { workspaceId: 'ws_2', collections: null }],
      ['a key limited to other collections', { workspaceId: 'ws_1', collections: ['col_2'] }],
    ])('is not found from %s', (_what, other) => {
      spec.given(completedWithChunks).when({ kind: 'reprocess', access: other, requestedBy: 'user:b', at: T2 }).thenThrows('not_found', 'Content not found');
    });

    it('is allowed to a key listing the collection', () => {
      spec.given(completedWithChunks).when({ kind: 'reprocess', access: { workspaceId: 'ws_1', collections: ['col_1'] }, requestedBy: 'user:a', at: T2 }).then([reprocessed]);
    });

    it.each([
      ['deleted', [added, deleted]],
      ['absent', []],
    ] as const)('is not found on a %s content', (_what, given) => {
      spec.given(given).when({ kind: 'reprocess', access, requestedBy: 'user:a', at: T2 }).thenThrows('not_found');
    });
  });

  describe('chunk edits and deletions', () => {
    const edit = (over: Partial<Extract<ContentCommand, { kind: 'edit-chunk' }>> = {}): ContentCommand => ({
      kind: 'edit-chunk',
      access,
      chunkId: 'cnt_1_c1',
      chunkIndex: 1,
      index: 'local_m_4',
      source: null,
      text: 'new text',
      metadata: { a: 1 },
      vector: 'BBBB',
      editedBy: 'user:a',
      at: T2,
      ...over,
    });
    const removeChunk = (over: Partial<Extract<ContentCommand, { kind: 'delete-chunk' }>> = {}): ContentCommand => ({ kind: 'delete-chunk', access, chunkId: 'cnt_1_c1', at: T2, ...over });

    it('edits a chunk of a completed content', () => {
      spec.given(completedWithChunks).when(edit()).then([
        {
          type: 'knowledge.ChunkEdited',
          data: { ...base, chunkId: 'cnt_1_c1', chunkIndex: 1, index: 'local_m_4', source: null, text: 'new text', metadata: { a: 1 }, vector: 'BBBB', editedBy: 'user:a', editedAt: T2 },
        },
      ]);
    });

    it('deletes a chunk of a completed content, which is then gone', () => {
      const state = spec.given(completedWithChunks).when(removeChunk()).then([
        { type: 'knowledge.ChunkDeleted', data: { ...base, chunkId: 'cnt_1_c1', chunkIndex: 1, deletedAt: T2 } },
      ]);
      expect([...(state as LiveContent).chunks.entries()]).toEqual([['cnt_1_c0', 0]]);
      spec.given([...completedWithChunks, { type: 'knowledge.ChunkDeleted', data: { ...base, chunkId: 'cnt_1_c1', chunkIndex: 1, deletedAt: T2 } }])
        .when(removeChunk())
        .thenThrows('not_found', 'Chunk not found');
    });

    it.each([
      ['new', [added], /being processed/],
      ['processing', [...processing, chunksAdded(1, 0, 1)], /being processed/],
      ['waiting for a retry', [...processing, chunksAdded(1, 0, 1), failed(1, 'busy', T3)], /being processed/],
      // A reprocess started: the chunk the user just listed is not in the new attempt yet, still a conflict, not a 404.
      ['reprocessing', [...completedWithChunks, reprocessed, started(2, 'lease_2', T3)], /being processed/],
      ['failed', [...processing, chunksAdded(1, 0, 1), failed(1, 'bad', null)], /failed; reprocess/],
    ] as const)('conflicts while the content is %s', (_what, given, message) => {
      spec.given(given).when(edit()).thenThrows('conflict', message);
      spec.given(given).when(removeChunk()).thenThrows('conflict', message);
    });

    it('is not found for a chunk the content does not have', () => {
      spec.given(completedWithChunks).when(edit({ chunkId: 'cnt_1_c9' })).thenThrows('not_found', 'Chunk not found');
      spec.given(completedWithChunks).when(removeChunk({ chunkId: 'cnt_1_c9' })).thenThrows('not_found', 'Chunk not found');
    });

    it.each([
      ['another workspace', { workspaceId: 'ws_2', collections: null }],
      ['a key limited to other collections', { workspaceId: 'ws_1', collections: ['col_2'] }],
      ['a key limited to no collection', { workspaceId: 'ws_1', collections: [] }],
    ])('is not found from %s (never forbidden, never a conflict that leaks the state)', (_what, other) => {
      for (const given of [completedWithChunks, processing]) {
        spec.given(given).when(edit({ access: other })).thenThrows('not_found', 'Chunk not found');
        spec.given(given).when(removeChunk({ access: other })).thenThrows('not_found', 'Chunk not found');
      }
    });

    it('is allowed to a key listing the collection', () => {
      spec.given(completedWithChunks).when(removeChunk({ access: { workspaceId: 'ws_1', collections: ['col_1', 'col_2'] } })).then([
        { type: 'knowledge.ChunkDeleted', data: { ...base, chunkId: 'cnt_1_c1', chunkIndex: 1, deletedAt: T2 } },
      ]);
    });

    it('finds the content of a chunk id, and rejects ids that name none', () => {
      expect(contentIdOfChunk(chunkIdOf('cnt_a_c1', 12))).toBe('cnt_a_c1');
      expect(contentIdOfChunk('cnt_1')).toBeNull();
      expect(contentIdOfChunk('_c1')).toBeNull();
      expect(contentIdOfChunk('cnt_1_cx')).toBeNull();
    });
  });

  describe('delete', () => {
    it('deletes a visible content; its lease holder is then out', () => {
      const state = spec.given(processing).when({ kind: 'delete', access, cause: 'request', at: T2 }).then([deleted]);
      expect(state).toEqual({ status: 'deleted', contentId: 'cnt_1', collectionId: base.collectionId, workspaceId: 'ws_1' });
      expect(() => contentDecider.decide({ kind: 'complete', leaseId: 'lease_1', at: T2 }, state)).toThrow(LeaseLostError);
    });

    it('is not found outside the caller\'s access', () => {
      spec.given(completedWithChunks).when({ kind: 'delete', access: { workspaceId: 'ws_2', collections: null }, cause: 'request', at: T2 }).thenThrows('not_found', 'Content not found');
      spec.given(completedWithChunks).when({ kind: 'delete', access: { workspaceId: 'ws_1', collections: ['col_9'] }, cause: 'request', at: T2 }).thenThrows('not_found');
    });

    it('lets its owner delete it again while it is being erased (nothing new), and no one else', () => {
      spec.given([added, deleted]).when({ kind: 'delete', access, cause: 'request', at: T3 }).thenNothingHappened();
      spec.given([added, deleted]).when({ kind: 'delete', access: { workspaceId: 'ws_2', collections: null }, cause: 'request', at: T3 }).thenThrows('not_found', 'Content not found');
      spec.given([added, deleted]).when({ kind: 'delete', access: { workspaceId: 'ws_1', collections: ['col_9'] }, cause: 'request', at: T3 }).thenThrows('not_found');
    });

    it('cascades (no access) over a live content, and is a no-op once it is gone', () => {
      spec.given(processing).when({ kind: 'delete', access: null, cause: 'collection', at: T2 }).then([{ ...deleted, data: { ...deleted.data, cause: 'collection' } }]);
      spec.given([added, deleted]).when({ kind: 'delete', access: null, cause: 'collection', at: T3 }).thenNothingHappened();
      spec.given([]).when({ kind: 'delete', access: null, cause: 'collection', at: T3 }).thenNothingHappened();
    });

    it('ignores every later event of a deleted content', () => {
      expect(stateOf([added, deleted, started(1, 'l', T3), chunksAdded(1, 0), completed(1, 1)])).toEqual({ status: 'deleted', contentId: 'cnt_1', collectionId: 'col_1', workspaceId: 'ws_1' });
    });
  });
});
