import type { CollectionRecord, EmbeddingConfig } from '@lore/knowledge/contracts';
import type { CollectionProperties, EmbeddingModel } from '@lore/knowledge/domain';
import type { CollectionDoc } from './knowledge.read-models';

/** The record fields of a collection's user-set properties (events name them in camelCase). */
type PropertyChanges = { readonly [K in keyof CollectionProperties]?: CollectionProperties[K] | undefined };

function propertyFields(p: PropertyChanges): Partial<CollectionDoc> {
  const fields: Record<string, unknown> = {
    name: p.name,
    description: p.description,
    store_type: p.storeType,
    visibility: p.visibility,
    status: p.status,
    tags: p.tags,
    parent_id: p.parentId,
    meta_data: p.metaData,
    settings: p.settings,
    source_type: p.sourceType,
    source_id: p.sourceId,
  };
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
}

export function collectionDoc(
  created: CollectionProperties & { collectionId: string; workspaceId: string; embedding: EmbeddingModel; createdBy: string; createdAt: string },
): CollectionDoc {
  return {
    ...(propertyFields(created) as Required<ReturnType<typeof propertyFields>>),
    id: created.collectionId,
    workspace_id: created.workspaceId,
    stats: { content_count: 0, chunk_count: 0, total_bytes: 0 },
    model: created.embedding,
    pending_model: null,
    created_at: created.createdAt,
    updated_at: created.createdAt,
    created_by: created.createdBy,
  };
}

export function withProperties(doc: CollectionDoc, changes: PropertyChanges): CollectionDoc {
  return { ...doc, ...propertyFields(changes) };
}

export function embeddingConfig(model: EmbeddingModel): EmbeddingConfig {
  return { provider: model.provider, model: model.model, dimensions: model.dimensions, distance: model.distance, max_input_tokens: model.maxInputTokens };
}

export function toCollectionRecord(doc: CollectionDoc): CollectionRecord {
  return {
    id: doc.id,
    name: doc.name,
    workspace_id: doc.workspace_id,
    description: doc.description,
    store_type: doc.store_type,
    visibility: doc.visibility,
    status: doc.status,
    tags: doc.tags,
    parent_id: doc.parent_id,
    stats: doc.stats,
    meta_data: doc.meta_data,
    settings: doc.settings,
    embedding: embeddingConfig(doc.model),
    pending_embedding: doc.pending_model === null ? null : embeddingConfig(doc.pending_model),
    source_type: doc.source_type,
    source_id: doc.source_id,
    created_at: doc.created_at,
    updated_at: doc.updated_at,
    created_by: doc.created_by,
  };
}
