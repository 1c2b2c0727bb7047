import { AppError, invalid, jsonDepth, newId, notFound, type ReplyIn, type ValidRequestIn, type WorkspaceQuota } from '@lore/platform/kernel';
import type { DocumentCollection } from '@lore/platform/documents/port';
import { handleCommand } from '@lore/platform/cqrs';
import type { KnowledgeMessages } from '@lore/knowledge/contracts';
import { contentDecider, contentIdOfChunk, contentStreamId, mayAccess, upcastContentEvent } from '@lore/knowledge/domain';
import { CHUNKS, COLLECTIONS, CONTENTS, type ChunkDoc, type CollectionDoc, type ContentDoc } from './knowledge.read-models';
import { accessOf, type KnowledgeCommandDeps } from './collection.commands';
import { providerOf } from './embedding-choice';
import { encodeVector } from './chunk-shape';
import { toChunkRecord, toContentRecord } from './content-records';

/**
 * Nesting a vector point's payload metadata may have (the vector stores refuse deeper). The
 * request schemas allow MAX_JSON_DEPTH; a content or chunk deeper than this would be stored,
 * then refused by the chunk-vectors projection on every retry, stalling every knowledge write.
 */
export const MAX_CHUNK_METADATA_DEPTH = 32;

function assertIndexableMetadata(metadata: Record<string, unknown> | null | undefined): void {
  if (metadata !== null && metadata !== undefined && jsonDepth(metadata, MAX_CHUNK_METADATA_DEPTH) > MAX_CHUNK_METADATA_DEPTH) {
    throw invalid(['body', 'metadata'], `Must nest at most ${MAX_CHUNK_METADATA_DEPTH} levels`);
  }
}

const contentAggregate = { name: 'content', decider: contentDecider, upcast: upcastContentEvent };
const RETRIES = 10;

/** Contents and their chunks: upload, delete, reprocess; chunk edits and deletions. */
export class ContentCommands {
  constructor(
    private readonly deps: KnowledgeCommandDeps,
    private readonly maxUploadBytes: number,
    /** QUOTA_CONTENT_BYTES and QUOTA_CHUNKS, checked when a content is created (its chunks come later, from its text). */
    private readonly quotas: { readonly contentBytes: WorkspaceQuota; readonly chunks: WorkspaceQuota },
  ) {}

  async create(command: ValidRequestIn<KnowledgeMessages, 'createContent'>): Promise<ReplyIn<KnowledgeMessages, 'createContent'>> {
    // As an uploaded file with no text is refused: it would complete with no chunks, unsearchable.
    if (command.parts === 1 && command.text.trim() === '') throw invalid(['body', 'text'], 'The text is empty (only whitespace)', 'string_too_short');
    assertIndexableMetadata(command.metadata);
    const collection = await this.deps.documents.collection<CollectionDoc>(COLLECTIONS).get(command.collectionId);
    if (collection === null || !mayAccess(accessOf(command), { workspaceId: collection.workspace_id, collectionId: collection.id })) {
      throw invalid(['body', 'collection_id'], 'Collection not found', 'not_found');
    }
    const firstBytes = Buffer.byteLength(command.text);
    const sizeBytes = command.sizeBytes ?? firstBytes;
    if (command.parts === 1 ? sizeBytes !== firstBytes : sizeBytes <= firstBytes) {
      throw invalid(['message', 'sizeBytes'], command.parts === 1 ? 'sizeBytes must be the text\'s UTF-8 length' : 'sizeBytes must exceed the first part\'s length');
    }
    if (sizeBytes > this.maxUploadBytes) throw new AppError('too_large', `The text is larger than ${this.maxUploadBytes} bytes`);
    const inWorkspace = { workspace_id: command.workspaceId };
    await this.quotas.chunks.enforce(command.workspaceId, () => this.deps.documents.collection(CHUNKS).count(inWorkspace));
    await this.quotas.contentBytes.enforce(command.workspaceId, () => totalSize(this.deps.documents.collection<ContentDoc>(CONTENTS), command.workspaceId), sizeBytes);
    const now = this.deps.clock.now();
    const contentId = newId('cnt', now.getTime());
    const event = {
      contentId,
      collectionId: command.collectionId,
      workspaceId: command.workspaceId,
      name: command.name,
      source: command.source ?? null,
      mimeType: command.mimeType,
      metadata: command.metadata ?? {},
      text: command.text,
      sizeBytes,
      ...(command.parts > 1 ? { parts: command.parts } : {}),
      createdBy: command.actor,
      createdAt: now.toISOString(),
    };
    const result = await handleCommand(this.deps.events, contentAggregate, contentStreamId(contentId), { kind: 'add', event }, {
      newStream: true,
      metadata: { actor: command.actor, workspaceId: command.workspaceId },
    });
    await this.deps.readYourWrites.settle(result.position);
    return this.contentRecord(contentId);
  }

  async appendText(command: ValidRequestIn<KnowledgeMessages, 'appendContentText'>): Promise<ReplyIn<KnowledgeMessages, 'appendContentText'>> {
    const result = await handleCommand(
      this.deps.events,
      contentAggregate,
      contentStreamId(command.contentId),
      { kind: 'append-text', access: accessOf(command), part: command.part, text: command.text },
      { metadata: { actor: command.actor, workspaceId: command.workspaceId } },
    );
    await this.deps.readYourWrites.settle(result.position);
    return this.contentRecord(command.contentId);
  }

  async delete(command: ValidRequestIn<KnowledgeMessages, 'deleteContent'>): Promise<ReplyIn<KnowledgeMessages, 'deleteContent'>> {
    const result = await handleCommand(
      this.deps.events,
      contentAggregate,
      contentStreamId(command.contentId),
      { kind: 'delete', access: accessOf(command), cause: 'request', at: this.deps.clock.now().toISOString() },
      { retries: RETRIES, metadata: { actor: command.actor, workspaceId: command.workspaceId } },
    );
    await this.deps.readYourWrites.settle(result.position);
    return { contentId: command.contentId };
  }

  async reprocess(command: ValidRequestIn<KnowledgeMessages, 'reprocessContent'>): Promise<ReplyIn<KnowledgeMessages, 'reprocessContent'>> {
    const result = await handleCommand(
      this.deps.events,
      contentAggregate,
      contentStreamId(command.contentId),
      { kind: 'reprocess', access: accessOf(command), requestedBy: command.actor, at: this.deps.clock.now().toISOString() },
      { retries: RETRIES, metadata: { actor: command.actor, workspaceId: command.workspaceId } },
    );
    await this.deps.readYourWrites.settle(result.position);
    return this.contentRecord(command.contentId);
  }

  /** A text change is embedded before it is recorded; the response waits until the new vector is searchable. */
  async updateChunk(command: ValidRequestIn<KnowledgeMessages, 'updateChunk'>): Promise<ReplyIn<KnowledgeMessages, 'updateChunk'>> {
    assertIndexableMetadata(command.metadata);
    const { chunk, collection } = await this.chunkWithCollection(command);
    const text = command.content ?? chunk.content;
    const metadata = command.metadata ?? chunk.metadata;
    let vector: string | null = null;
    if (command.content !== undefined && command.content !== chunk.content) {
      const provider = providerOf(this.deps.embeddings, collection.model);
      const [tokens] = await provider.tokenize([text]);
      if (tokens !== undefined && tokens.count > collection.model.maxInputTokens) {
        throw invalid(['body', 'content'], `The chunk has ${tokens.count} tokens; ${collection.model.model} reads at most ${collection.model.maxInputTokens}`);
      }
      const [embedded] = await provider.embedDocuments([text]);
      if (embedded === undefined) throw new Error('the embedding provider returned no vector');
      vector = encodeVector(embedded);
    }
    if (vector === null && command.metadata === undefined) return toChunkRecord(chunk);
    const result = await handleCommand(
      this.deps.events,
      contentAggregate,
      contentStreamId(chunk.content_id),
      {
        kind: 'edit-chunk',
        access: accessOf(command),
        chunkId: chunk.id,
        chunkIndex: chunk.chunk_index,
        index: collection.model.index,
        source: chunk.source,
        text,
        metadata,
        vector,
        editedBy: command.actor,
        at: this.deps.clock.now().toISOString(),
      },
      { metadata: { actor: command.actor, workspaceId: command.workspaceId } },
    );
    await this.deps.readYourWrites.settle(result.position);
    const updated = await this.deps.documents.collection<ChunkDoc>(CHUNKS).get(chunk.id);
    if (updated === null) throw notFound('Chunk');
    return toChunkRecord(updated);
  }

  async deleteChunk(command: ValidRequestIn<KnowledgeMessages, 'deleteChunk'>): Promise<ReplyIn<KnowledgeMessages, 'deleteChunk'>> {
    const contentId = contentIdOfChunk(command.chunkId);
    if (contentId === null) throw notFound('Chunk');
    const result = await handleCommand(
      this.deps.events,
      contentAggregate,
      contentStreamId(contentId),
      { kind: 'delete-chunk', access: accessOf(command), chunkId: command.chunkId, at: this.deps.clock.now().toISOString() },
      { retries: RETRIES, metadata: { actor: command.actor, workspaceId: command.workspaceId } },
    );
    await this.deps.readYourWrites.settle(result.position);
    return { chunkId: command.chunkId };
  }

  private async chunkWithCollection(command: ValidRequestIn<KnowledgeMessages, 'updateChunk'>): Promise<{ chunk: ChunkDoc; collection: CollectionDoc }> {
    const chunk = await this.deps.documents.collection<ChunkDoc>(CHUNKS).get(command.chunkId);
    const access = accessOf(command);
    if (chunk === null || !mayAccess(access, { workspaceId: chunk.workspace_id, collectionId: chunk.collection_id })) throw notFound('Chunk');
    const collection = await this.deps.documents.collection<CollectionDoc>(COLLECTIONS).get(chunk.collection_id);
    if (collection === null) throw notFound('Chunk');
    return { chunk, collection };
  }

  private async contentRecord(contentId: string): Promise<ReplyIn<KnowledgeMessages, 'getContent'>> {
    const doc = await this.deps.documents.collection<ContentDoc>(CONTENTS).get(contentId);
    if (doc === null) throw notFound('Content');
    return toContentRecord(doc);
  }
}

/** The text bytes a workspace's contents hold, summed from the contents read model a page at a time. */
async function totalSize(contents: DocumentCollection<ContentDoc>, workspaceId: string): Promise<number> {
  let total = 0;
  let cursor: string | null = null;
  do {
    const page = await contents.find({ filter: { workspace_id: workspaceId }, limit: 1_000, ...(cursor === null ? {} : { cursor }) });
    for (const content of page.items) total += content.size;
    cursor = page.nextCursor;
  } while (cursor !== null);
  return total;
}
