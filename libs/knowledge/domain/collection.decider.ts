import { conflict, definedFields, notFound, type Decider } from '@lore/platform/kernel';
import { assertAccess, type Access } from './access';
import type { CollectionEvent, CollectionProperties, EmbeddingModel } from './collection.events';

/** `status` here is the aggregate's life; the user's `status` label lives in `properties`. */
export type CollectionState =
  | { readonly status: 'absent' }
  | { readonly status: 'active'; readonly collectionId: string; readonly workspaceId: string; readonly properties: CollectionProperties; readonly embedding: EmbeddingModel; readonly reindex: { readonly reindexId: string; readonly to: EmbeddingModel } | null }
  | { readonly status: 'deleted'; readonly collectionId: string; readonly workspaceId: string };

export type LiveCollection = Extract<CollectionState, { status: 'active' }>;

export type CollectionCommand =
  | { readonly kind: 'create'; readonly collectionId: string; readonly workspaceId: string; readonly properties: CollectionProperties; readonly embedding: EmbeddingModel; readonly createdBy: string; readonly at: string }
  | { readonly kind: 'update'; readonly access: Access; readonly changes: Partial<CollectionProperties>; readonly at: string }
  /** A model change, with the re-index's id (the handler checked the model exists). */
  | { readonly kind: 'change-model'; readonly access: Access; readonly to: EmbeddingModel; readonly reindexId: string; readonly at: string }
  | { readonly kind: 'reindex-chunks'; readonly reindexId: string; readonly chunks: Extract<CollectionEvent, { type: 'knowledge.CollectionChunksReindexed' }>['data']['chunks'] }
  | { readonly kind: 'complete-reindex'; readonly reindexId: string; readonly at: string }
  | { readonly kind: 'delete'; readonly access: Access; readonly at: string };

/** The collection as the caller may see it, else "Collection not found". */
export function visibleCollection(state: CollectionState, access: Access): LiveCollection {
  if (state.status !== 'active') throw notFound('Collection');
  assertAccess(access, state, 'Collection');
  return state;
}

export const collectionDecider: Decider<CollectionCommand, CollectionState, CollectionEvent> = {
  initialState: () => ({ status: 'absent' }),

  decide(command, state) {
    switch (command.kind) {
      case 'create':
        if (state.status !== 'absent') throw conflict(`collection ${command.collectionId} already exists`);
        return [
          {
            type: 'knowledge.CollectionCreated',
            data: { ...command.properties, collectionId: command.collectionId, workspaceId: command.workspaceId, embedding: command.embedding, createdBy: command.createdBy, createdAt: command.at },
          },
        ];
      case 'update': {
        const collection = visibleCollection(state, command.access);
        const changes = changedProperties(collection.properties, command.changes);
        if (Object.keys(changes).length === 0) return [];
        return [{ type: 'knowledge.CollectionUpdated', data: { collectionId: collection.collectionId, workspaceId: collection.workspaceId, changes, updatedAt: command.at } }];
      }
      case 'change-model': {
        const collection = visibleCollection(state, command.access);
        const target = collection.reindex?.to ?? collection.embedding;
        if (target.index === command.to.index) return [];
        // A second change while one runs replaces it: the newer re-index is the one that completes.
        return [
          {
            type: 'knowledge.CollectionReindexStarted',
            data: { collectionId: collection.collectionId, workspaceId: collection.workspaceId, reindexId: command.reindexId, from: collection.embedding, to: command.to, startedAt: command.at },
          },
        ];
      }
      case 'reindex-chunks': {
        if (state.status !== 'active' || state.reindex?.reindexId !== command.reindexId) return []; // superseded or deleted
        const to = state.reindex.to;
        return [
          {
            type: 'knowledge.CollectionChunksReindexed',
            data: { collectionId: state.collectionId, reindexId: command.reindexId, index: { name: to.index, dimensions: to.dimensions, distance: to.distance }, chunks: [...command.chunks] },
          },
        ];
      }
      case 'complete-reindex': {
        if (state.status !== 'active' || state.reindex?.reindexId !== command.reindexId) return []; // superseded or deleted
        return [
          {
            type: 'knowledge.CollectionReindexCompleted',
            data: { collectionId: state.collectionId, reindexId: command.reindexId, from: state.embedding, to: state.reindex.to, completedAt: command.at },
          },
        ];
      }
      case 'delete': {
        // Its owner deleting it again while its erasure runs: nothing new; the caller follows that erasure.
        if (state.status === 'deleted') {
          assertAccess(command.access, state, 'Collection');
          return [];
        }
        const collection = visibleCollection(state, command.access);
        return [{ type: 'knowledge.CollectionDeleted', data: { collectionId: collection.collectionId, workspaceId: collection.workspaceId, deletedAt: command.at } }];
      }
    }
  },

  evolve(state, event) {
    switch (event.type) {
      case 'knowledge.CollectionCreated': {
        const { collectionId, workspaceId, embedding, createdBy: _by, createdAt: _at, ...properties } = event.data;
        return { status: 'active', collectionId, workspaceId, properties, embedding, reindex: null };
      }
      case 'knowledge.CollectionUpdated':
        if (state.status !== 'active') return state;
        return { ...state, properties: { ...state.properties, ...definedFields(event.data.changes) } };
      case 'knowledge.CollectionReindexStarted':
        if (state.status !== 'active') return state;
        return { ...state, reindex: { reindexId: event.data.reindexId, to: event.data.to } };
      case 'knowledge.CollectionChunksReindexed':
        return state;
      case 'knowledge.CollectionReindexCompleted':
        if (state.status !== 'active') return state;
        return { ...state, embedding: event.data.to, reindex: null };
      case 'knowledge.CollectionDeleted':
        return { status: 'deleted', collectionId: event.data.collectionId, workspaceId: event.data.workspaceId };
    }
  },
};

function changedProperties(current: CollectionProperties, wanted: Partial<CollectionProperties>): Partial<CollectionProperties> {
  const changes: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(wanted)) {
    if (value === undefined) continue;
    if (JSON.stringify(value) !== JSON.stringify((current as Record<string, unknown>)[key])) changes[key] = value;
  }
  return changes;
}
