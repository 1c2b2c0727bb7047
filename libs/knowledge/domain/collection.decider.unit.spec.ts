import { deciderSpec } from '@lore/platform/testing';
import { collectionDecider, type CollectionCommand } from './collection.decider';
import type { CollectionEvent, CollectionProperties, EmbeddingModel } from './collection.events';
import type { Access } from './access';

const T0 = '2025-01-01T00:00:00.000Z';
const T1 = '2025-01-02T00:00:00.000Z';
const T2 = '2025-01-03T00:00:00.000Z';
const local: EmbeddingModel = { provider: 'local', model: 'mini', dimensions: 384, distance: 'cosine', maxInputTokens: 256, index: 'local_mini_384' };
const remote: EmbeddingModel = { provider: 'openai-compatible', model: 'big', dimensions: 1536, distance: 'cosine', maxInputTokens: 8191, index: 'openai_compatible_big_1536' };
const other: EmbeddingModel = { ...remote, model: 'other', index: 'openai_compatible_other_1536' };
const access: Access = { workspaceId: 'ws_1', collections: null };
const ids = { collectionId: 'col_1', workspaceId: 'ws_1' } as const;

const properties: CollectionProperties = {
  name: 'Docs',
  description: null,
  storeType: 'vector',
  visibility: 'private',
  status: 'active',
  tags: ['a'],
  parentId: null,
  metaData: {},
  settings: { chunk_size: 256, chunk_overlap: 32 },
  sourceType: 'document',
  sourceId: null,
};

type Of<T extends CollectionEvent['type']> = Extract<CollectionEvent, { type: T }>;
const created: Of<'knowledge.CollectionCreated'> = { type: 'knowledge.CollectionCreated', data: { ...properties, ...ids, embedding: local, createdBy: 'user:a', createdAt: T0 } };
const updated = (changes: Partial<CollectionProperties>): Of<'knowledge.CollectionUpdated'> => ({ type: 'knowledge.CollectionUpdated', data: { ...ids, changes, updatedAt: T1 } });
const reindexStarted = (reindexId: string, from: EmbeddingModel, to: EmbeddingModel): Of<'knowledge.CollectionReindexStarted'> => ({
  type: 'knowledge.CollectionReindexStarted',
  data: { ...ids, reindexId, from, to, startedAt: T1 },
});
const deleted: Of<'knowledge.CollectionDeleted'> = { type: 'knowledge.CollectionDeleted', data: { ...ids, deletedAt: T2 } };
const reindexChunk = { chunkId: 'cnt_1_c0', contentId: 'cnt_1', chunkIndex: 0, text: 't', source: null, tags: [], metadata: {}, vector: 'AAAA' };

const create = (): CollectionCommand => ({ kind: 'create', ...ids, properties, embedding: local, createdBy: 'user:a', at: T0 });
const update = (changes: Partial<CollectionProperties>, who = access): CollectionCommand => ({ kind: 'update', access: who, changes, at: T1 });
const changeModel = (to: EmbeddingModel, reindexId: string, who = access): CollectionCommand => ({ kind: 'change-model', access: who, to, reindexId, at: T1 });

const spec = deciderSpec(collectionDecider);

describe('collectionDecider', () => {
  describe('create', () => {
    it('creates an absent collection with its model and no re-index', () => {
      const state = spec.given([]).when(create()).then([created]);
      expect(state).toEqual({ status: 'active', ...ids, properties, embedding: local, reindex: null });
    });

    it('conflicts when it exists, even deleted', () => {
      spec.given([created]).when(create()).thenThrows('conflict', /col_1/);
      spec.given([created, deleted]).when(create()).thenThrows('conflict');
    });
  });

  describe('visibility: only in its workspace and within a key\'s collections', () => {
    const outsiders: ReadonlyArray<readonly [string, Access]> = [
      ['another workspace', { workspaceId: 'ws_2', collections: null }],
      ['a key limited to other collections', { workspaceId: 'ws_1', collections: ['col_2'] }],
      ['a key limited to no collection', { workspaceId: 'ws_1', collections: [] }],
    ];
    const commands: ReadonlyArray<readonly [string, (who: Access) => CollectionCommand]> = [
      ['update', (who) => update({ name: 'Renamed' }, who)],
      ['change-model', (who) => changeModel(remote, 'r1', who)],
      ['delete', (who) => ({ kind: 'delete', access: who, at: T2 })],
    ];

    it.each(commands.flatMap(([name, command]) => outsiders.map(([from, who]) => [name, from, command, who] as const)))(
      '%s is not found from %s',
      (_name, _from, command, who) => {
        spec.given([created]).when(command(who)).thenThrows('not_found', 'Collection not found');
      },
    );

    it.each(commands)('%s is not found on an absent collection, nor on a deleted one from outside', (_name, command) => {
      spec.given([]).when(command(access)).thenThrows('not_found', 'Collection not found');
      for (const [, who] of outsiders) spec.given([created, deleted]).when(command(who)).thenThrows('not_found', 'Collection not found');
    });

    it.each(commands.filter(([name]) => name !== 'delete'))('%s is not found on a deleted collection', (_name, command) => {
      spec.given([created, deleted]).when(command(access)).thenThrows('not_found', 'Collection not found');
    });

    it('lets a key listing the collection act on it', () => {
      spec.given([created]).when(update({ name: 'Renamed' }, { workspaceId: 'ws_1', collections: ['col_9', 'col_1'] })).then([updated({ name: 'Renamed' })]);
    });
  });

  describe('update', () => {
    it('records only what changed, and evolves the properties', () => {
      const state = spec.given([created]).when(update({ name: 'Docs', tags: ['a', 'b'], description: 'd' })).then([updated({ tags: ['a', 'b'], description: 'd' })]);
      expect(state).toMatchObject({ properties: { ...properties, tags: ['a', 'b'], description: 'd' } });
    });

    it('is a no-op when nothing changes (same values, or nothing given)', () => {
      spec.given([created]).when(update({ name: 'Docs', tags: ['a'], settings: { chunk_size: 256, chunk_overlap: 32 } })).thenNothingHappened();
      spec.given([created]).when(update({})).thenNothingHappened();
      // Types forbid it (exactOptionalPropertyTypes), but a JSON-ish caller may still send it.
      spec.given([created]).when(update({ name: undefined } as unknown as Partial<CollectionProperties>)).thenNothingHappened();
    });

    it('can clear a nullable property', () => {
      const withDescription = [created, updated({ description: 'd' })];
      spec.given(withDescription).when(update({ description: null })).then([updated({ description: null })]);
    });
  });

  describe('model change and re-index', () => {
    it('starts a re-index to another model; searches keep the old one until it completes', () => {
      const state = spec.given([created]).when(changeModel(remote, 'r1')).then([reindexStarted('r1', local, remote)]);
      expect(state).toMatchObject({ embedding: local, reindex: { reindexId: 'r1', to: remote } });
    });

    it('is a no-op for the current model, or for the model already being indexed', () => {
      spec.given([created]).when(changeModel(local, 'r1')).thenNothingHappened();
      spec.given([created, reindexStarted('r1', local, remote)]).when(changeModel(remote, 'r2')).thenNothingHappened();
    });

    it('a second change supersedes the running re-index: only the newer one records chunks and completes', () => {
      const running = [created, reindexStarted('r1', local, remote)];
      const state = spec.given(running).when(changeModel(other, 'r2')).then([reindexStarted('r2', local, other)]);
      expect(state).toMatchObject({ embedding: local, reindex: { reindexId: 'r2', to: other } });
      const superseded = [...running, reindexStarted('r2', local, other)];
      spec.given(superseded).when({ kind: 'reindex-chunks', reindexId: 'r1', chunks: [reindexChunk] }).thenNothingHappened();
      spec.given(superseded).when({ kind: 'complete-reindex', reindexId: 'r1', at: T2 }).thenNothingHappened();
      spec.given(superseded).when({ kind: 'reindex-chunks', reindexId: 'r2', chunks: [reindexChunk] }).then([
        { type: 'knowledge.CollectionChunksReindexed', data: { collectionId: 'col_1', reindexId: 'r2', index: { name: other.index, dimensions: 1536, distance: 'cosine' }, chunks: [reindexChunk] } },
      ]);
    });

    it('changing back to the current model while a re-index runs starts one back to it (the running one is superseded)', () => {
      spec.given([created, reindexStarted('r1', local, remote)]).when(changeModel(local, 'r2')).then([reindexStarted('r2', local, local)]);
    });

    it('completes the running re-index: the collection switches models', () => {
      const state = spec.given([created, reindexStarted('r1', local, remote)]).when({ kind: 'complete-reindex', reindexId: 'r1', at: T2 }).then([
        { type: 'knowledge.CollectionReindexCompleted', data: { collectionId: 'col_1', reindexId: 'r1', from: local, to: remote, completedAt: T2 } },
      ]);
      expect(state).toMatchObject({ embedding: remote, reindex: null });
      // Once completed, late work of that re-index is ignored.
      const done = [created, reindexStarted('r1', local, remote), { type: 'knowledge.CollectionReindexCompleted', data: { collectionId: 'col_1', reindexId: 'r1', from: local, to: remote, completedAt: T2 } } as CollectionEvent];
      spec.given(done).when({ kind: 'reindex-chunks', reindexId: 'r1', chunks: [reindexChunk] }).thenNothingHappened();
      spec.given(done).when({ kind: 'complete-reindex', reindexId: 'r1', at: T2 }).thenNothingHappened();
    });

    it('ignores re-index work for a deleted or absent collection', () => {
      const gone = [created, reindexStarted('r1', local, remote), deleted];
      spec.given(gone).when({ kind: 'reindex-chunks', reindexId: 'r1', chunks: [reindexChunk] }).thenNothingHappened();
      spec.given(gone).when({ kind: 'complete-reindex', reindexId: 'r1', at: T2 }).thenNothingHappened();
      spec.given([]).when({ kind: 'complete-reindex', reindexId: 'r1', at: T2 }).thenNothingHappened();
    });
  });

  describe('delete', () => {
    it('deletes a visible collection, also during a re-index', () => {
      expect(spec.given([created]).when({ kind: 'delete', access, at: T2 }).then([deleted])).toEqual({ status: 'deleted', ...ids });
      spec.given([created, reindexStarted('r1', local, remote)]).when({ kind: 'delete', access, at: T2 }).then([deleted]);
    });

    it('changes nothing the second time, by its owner, while it is being erased', () => {
      spec.given([created, deleted]).when({ kind: 'delete', access, at: T2 }).thenNothingHappened();
    });

    it('ignores updates and re-index events recorded after it', () => {
      expect(spec.given([created, deleted, updated({ name: 'x' }), reindexStarted('r1', local, remote)]).state).toEqual({ status: 'deleted', ...ids });
    });
  });
});
