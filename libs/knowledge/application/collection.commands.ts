import { definedFields, forbidden, invalid, newId, notFound, type Clock, type ReplyIn, type ValidRequestIn } from '@lore/platform/kernel';
import type { EventStore } from '@lore/platform/event-store/port';
import type { DocumentStore } from '@lore/platform/documents/port';
import type { EmbeddingModels } from '@lore/platform/embeddings/port';
import type { VectorStore } from '@lore/platform/vectors/port';
import type { Rerankers } from '@lore/platform/rerank/port';
import { handleCommand, type ReadYourWrites } from '@lore/platform/cqrs';
import { outlastsWait, stillPurging } from '@lore/platform/projections';
import type { KnowledgeMessages, KnowledgeScope } from '@lore/knowledge/contracts';
import { collectionDecider, collectionStreamId, mayAccess, upcastCollectionEvent, type Access, type CollectionProperties } from '@lore/knowledge/domain';
import { COLLECTIONS, type CollectionDoc } from './knowledge.read-models';
import { toCollectionRecord } from './collection-docs';
import { chooseModel, chunkingSettings } from './embedding-choice';
import { deleteCollectionContents } from './collection-cascade.reactor';
import { COLLECTION_ERASURE, KNOWLEDGE_ERASURE } from './knowledge-erasure.reactor';
import { PendingPurges } from './chunk-purges';

const collectionAggregate = { name: 'collection', decider: collectionDecider, upcast: upcastCollectionEvent };
/** Updates are "make it so": safe to decide again on top of a concurrent write. */
const RETRIES = 10;

export interface KnowledgeCommandDeps {
  readonly events: EventStore;
  readonly documents: DocumentStore;
  readonly vectors: VectorStore;
  readonly embeddings: EmbeddingModels;
  readonly rerankers: Rerankers;
  readonly readYourWrites: ReadYourWrites;
  readonly clock: Clock;
  /** Resolves once the purge worker has removed what these purges name (contents' ids), see chunk-purges.ts. */
  readonly chunksPurged: (purgeIds: readonly string[], timeoutMs: number) => Promise<void>;
  /** Resolves once no purge of the collection is left: its own and its contents'. */
  readonly collectionPurged: (collectionId: string, timeoutMs: number) => Promise<void>;
}

export const accessOf = (scope: KnowledgeScope): Access => ({ workspaceId: scope.workspaceId, collections: scope.collections });

export class CollectionCommands {
  private readonly purges: PendingPurges;

  constructor(private readonly deps: KnowledgeCommandDeps) {
    this.purges = new PendingPurges(deps.documents);
  }

  async create(command: ValidRequestIn<KnowledgeMessages, 'createCollection'>): Promise<ReplyIn<KnowledgeMessages, 'createCollection'>> {
    // A key limited to named collections could never see a collection it created (its list is
    // fixed when the key is issued): refuse instead of answering 201 with an id that is then 404.
    if (command.collections !== null) throw forbidden('This API key is limited to specific collections and cannot create collections');
    const model = chooseModel(this.deps.embeddings, command.embedding);
    this.checkRerank(command.settings);
    const settings = { ...(command.settings ?? {}), ...chunkingSettings(model, command.settings) };
    if (command.parentId !== undefined && command.parentId !== null) await this.assertParent(command, command.parentId, null);
    const now = this.deps.clock.now();
    const collectionId = newId('col', now.getTime());
    const properties: CollectionProperties = {
      name: command.name,
      description: command.description ?? null,
      storeType: command.storeType ?? 'vector',
      visibility: command.visibility ?? 'private',
      status: command.status ?? 'active',
      tags: command.tags ?? [],
      parentId: command.parentId ?? null,
      metaData: command.metaData ?? {},
      settings,
      sourceType: command.sourceType ?? 'document',
      sourceId: command.sourceId ?? null,
    };
    const result = await handleCommand(
      this.deps.events,
      collectionAggregate,
      collectionStreamId(collectionId),
      { kind: 'create', collectionId, workspaceId: command.workspaceId, properties, embedding: model, createdBy: command.actor, at: now.toISOString() },
      { newStream: true, metadata: { actor: command.actor, workspaceId: command.workspaceId } },
    );
    await this.deps.readYourWrites.settle(result.position);
    return this.record(collectionId);
  }

  /** A default rerank provider must be one this service has (its searches would all be 422 otherwise). */
  private checkRerank(settings: { readonly rerank?: { readonly provider?: string | undefined } | null | undefined } | null | undefined): void {
    const provider = settings?.rerank?.provider;
    if (provider === undefined || this.deps.rerankers.get(provider) !== null) return;
    const known = this.deps.rerankers.list().map((p) => p.provider);
    throw invalid(['message', 'settings', 'rerank', 'provider'], `Rerank provider ${provider} is not configured; available: ${known.join(', ')}`);
  }

  async update(command: ValidRequestIn<KnowledgeMessages, 'updateCollection'>): Promise<ReplyIn<KnowledgeMessages, 'updateCollection'>> {
    const access = { workspaceId: command.workspaceId, collections: command.collections };
    const current = await this.visible(command.collectionId, access);
    if (command.parentId !== undefined && command.parentId !== null) await this.assertParent(command, command.parentId, command.collectionId);
    const target = command.embedding === undefined || command.embedding === null ? null : chooseModel(this.deps.embeddings, { provider: current.model.provider, model: current.model.model, ...definedFields(command.embedding) });
    const model = target ?? current.pending_model ?? current.model;
    this.checkRerank(command.settings);
    const settings = command.settings === undefined || command.settings === null ? (target === null ? undefined : { ...current.settings, ...chunkingSettings(model, current.settings) }) : { ...current.settings, ...command.settings, ...chunkingSettings(model, { ...current.settings, ...command.settings }) };
    const changes: Partial<CollectionProperties> = definedFields({
      name: command.name,
      description: command.description,
      storeType: command.storeType ?? undefined,
      visibility: command.visibility ?? undefined,
      status: command.status ?? undefined,
      tags: command.tags ?? undefined,
      parentId: command.parentId,
      metaData: command.metaData ?? undefined,
      settings,
      sourceType: command.sourceType,
      sourceId: command.sourceId,
    });
    const metadata = { actor: command.actor, workspaceId: command.workspaceId };
    const stream = collectionStreamId(command.collectionId);
    const at = this.deps.clock.now().toISOString();
    const updated = await handleCommand(this.deps.events, collectionAggregate, stream, { kind: 'update', access, changes, at }, { retries: RETRIES, metadata });
    let position = updated.position;
    if (target !== null) {
      const reindexId = newId('rix');
      const started = await handleCommand(this.deps.events, collectionAggregate, stream, { kind: 'change-model', access, to: target, reindexId, at }, { retries: RETRIES, metadata });
      position = started.position ?? position;
    }
    await this.deps.readYourWrites.settle(position);
    return this.record(command.collectionId);
  }

  async delete(command: ValidRequestIn<KnowledgeMessages, 'deleteCollection'>): Promise<ReplyIn<KnowledgeMessages, 'deleteCollection'>> {
    const { collectionId } = command;
    const access = { workspaceId: command.workspaceId, collections: command.collections };
    const result = await handleCommand(
      this.deps.events,
      collectionAggregate,
      collectionStreamId(collectionId),
      { kind: 'delete', access, at: this.deps.clock.now().toISOString() },
      { retries: RETRIES, metadata: { actor: command.actor, workspaceId: command.workspaceId } },
    ).catch(stillPurging(() => this.purges.pendingInCollection(collectionId, access)));
    // The purges of its chunks follow the erasures (the collection's, each content's): the last step (chunk-purges.ts).
    const chunksPurged = (): Promise<boolean> => outlastsWait(this.deps.readYourWrites.settleWithin((timeoutMs) => this.deps.collectionPurged(collectionId, timeoutMs)));
    if (result === null) return { collectionId, erasing: await chunksPurged() };
    // The read models drop the collection, its contents, chunks and points in this position's batch.
    const position = result.position ?? result.head;
    if (await outlastsWait(this.deps.readYourWrites.settle(position))) return { collectionId, erasing: true };
    // Answered once erased: each content's key shredded and stream deleted, then the collection's own stream, then its chunks.
    // A repeated DELETE (nothing appended) runs the idempotent cascade again and follows the same erasure.
    const lastContent = await deleteCollectionContents(this.deps, command, command.actor);
    const erasing =
      (await outlastsWait(this.deps.readYourWrites.settleReactor(KNOWLEDGE_ERASURE, lastContent))) ||
      (await outlastsWait(this.deps.readYourWrites.settleReactor(COLLECTION_ERASURE, position, undefined, [collectionStreamId(collectionId)]))) ||
      (await chunksPurged());
    return { collectionId, erasing };
  }

  private async visible(collectionId: string, access: Access): Promise<CollectionDoc> {
    const doc = await this.deps.documents.collection<CollectionDoc>(COLLECTIONS).get(collectionId);
    if (doc === null || !mayAccess(access, { workspaceId: doc.workspace_id, collectionId: doc.id })) throw notFound('Collection');
    return doc;
  }

  /** A parent is a visible collection, and never the collection itself or one of its descendants. */
  private async assertParent(scope: KnowledgeScope, parentId: string, self: string | null): Promise<void> {
    const access = accessOf(scope);
    let cursor: string | null = parentId;
    for (let depth = 0; cursor !== null; depth++) {
      if (cursor === self) throw invalid(['message', 'parentId'], 'A collection cannot be its own ancestor');
      const doc: CollectionDoc | null = await this.deps.documents.collection<CollectionDoc>(COLLECTIONS).get(cursor);
      if (doc === null || !mayAccess(access, { workspaceId: doc.workspace_id, collectionId: doc.id })) {
        if (depth === 0) throw invalid(['message', 'parentId'], 'Parent collection not found');
        return;
      }
      if (depth > 100) throw invalid(['message', 'parentId'], 'Collections nest at most 100 levels');
      cursor = doc.parent_id;
    }
  }

  private async record(collectionId: string): Promise<ReplyIn<KnowledgeMessages, 'createCollection'>> {
    const doc = await this.deps.documents.collection<CollectionDoc>(COLLECTIONS).get(collectionId);
    if (doc === null) throw notFound('Collection');
    return toCollectionRecord(doc);
  }
}
