import { isDeepStrictEqual } from 'node:util';
import { AppError, invalid, jsonDepth, newId, notFound, type ReplyIn, type ValidRequestIn, type WorkspaceQuota } from '@lore/platform/kernel';
import type { DocumentCollection } from '@lore/platform/documents/port';
import type { EmbeddingProvider } from '@lore/platform/embeddings/port';
import { handleCommand, readAggregateState } from '@lore/platform/cqrs';
import { outlastsWait, stillPurging } from '@lore/platform/projections';
import { CONTENT_PART_CHARS, ORIGINAL_PART_BYTES, textParts, type KnowledgeMessages } from '@lore/knowledge/contracts';
import { assertReprocessable, contentIdOfChunk, contentOfChangeableChunk, contentStreamId, mayAccess, visibleContent } from '@lore/knowledge/domain';
import { CHUNKS, COLLECTIONS, CONTENTS, type ChunkDoc, type CollectionDoc, type ContentDoc } from './knowledge.read-models';
import { accessOf, type KnowledgeCommandDeps } from './collection.commands';
import { providerOf } from './embedding-choice';
import { encodeVector } from './chunk-shape';
import { toChunkRecord, toContentRecord } from './content-records';
import type { ContentTexts } from './content-texts';
import type { ContentOriginals } from './content-originals';
import { KNOWLEDGE_ERASURE } from './knowledge-erasure.reactor';
import { contentAggregate } from './content-aggregate';
import { PendingPurges } from './chunk-purges';

/** Extracts a file's text (in reader processes, with limits); errors name the limit a file exceeded. */
export type ExtractText = (file: { readonly filename: string; readonly mimeType: string; readonly bytes: Buffer }, workspaceId: string) => Promise<{ readonly text: string }>;

/**
 * Nesting a vector point's payload metadata may have (the vector stores refuse deeper). The
 * request schemas allow MAX_JSON_DEPTH; a content or chunk deeper than this would be stored,
 * then refused by the chunk-vectors projection on every retry, stalling every knowledge write.
 */
export const MAX_CHUNK_METADATA_DEPTH = 32;

function assertIndexableMetadata(metadata: Record<string, unknown> | null | undefined): void {
  if (metadata !== null && metadata !== undefined && jsonDepth(metadata, MAX_CHUNK_METADATA_DEPTH) > MAX_CHUNK_METADATA_DEPTH) {
    throw invalid(['message', 'metadata'], `Must nest at most ${MAX_CHUNK_METADATA_DEPTH} levels`);
  }
}

const RETRIES = 10;

/** Contents and their chunks: upload, delete, reprocess; chunk edits and deletions. */
export class ContentCommands {
  private readonly purges: PendingPurges;

  constructor(
    private readonly deps: KnowledgeCommandDeps,
    private readonly texts: ContentTexts,
    private readonly originals: ContentOriginals,
    /** Text extraction of files (libs/knowledge/extraction), for reprocessing from a kept original. */
    private readonly extract: ExtractText,
    private readonly maxUploadBytes: number,
    /** QUOTA_CONTENT_BYTES and QUOTA_CHUNKS, checked when a content is created (its chunks come later, from its text). */
    private readonly quotas: { readonly contentBytes: WorkspaceQuota; readonly chunks: WorkspaceQuota },
  ) {
    this.purges = new PendingPurges(deps.documents);
  }

  /**
   * Whether a content could be added to the collection now, asked before a file is read for it
   * (a PDF of up to 20 MiB, in a reader process): the caller's collection (404), and room in the
   * workspace for one more chunk and byte (403, as the creation would answer). The creation
   * checks both again, with the text's size.
   */
  async admit(query: ValidRequestIn<KnowledgeMessages, 'admitContent'>): Promise<ReplyIn<KnowledgeMessages, 'admitContent'>> {
    const collection = await this.deps.documents.collection<CollectionDoc>(COLLECTIONS).get(query.collectionId);
    if (collection === null || !mayAccess(accessOf(query), { workspaceId: collection.workspace_id, collectionId: collection.id })) throw notFound('Collection');
    const inWorkspace = { workspace_id: query.workspaceId };
    await this.quotas.chunks.assertRoom(query.workspaceId, () => this.deps.documents.collection(CHUNKS).count(inWorkspace));
    await this.quotas.contentBytes.assertRoom(query.workspaceId, () => totalSize(this.deps.documents.collection<ContentDoc>(CONTENTS), query.workspaceId));
    return { collectionId: collection.id };
  }

  async create(command: ValidRequestIn<KnowledgeMessages, 'createContent'>): Promise<ReplyIn<KnowledgeMessages, 'createContent'>> {
    // As an uploaded file with no text is refused: it would complete with no chunks, unsearchable.
    if (command.parts === 1 && command.text.trim() === '') throw invalid(['message', 'text'], 'The text is empty (only whitespace)', 'string_too_short');
    assertIndexableMetadata(command.metadata);
    const collection = await this.deps.documents.collection<CollectionDoc>(COLLECTIONS).get(command.collectionId);
    if (collection === null || !mayAccess(accessOf(command), { workspaceId: collection.workspace_id, collectionId: collection.id })) {
      throw invalid(['message', 'collectionId'], 'Collection not found', 'not_found');
    }
    const firstBytes = Buffer.byteLength(command.text);
    const sizeBytes = command.sizeBytes ?? firstBytes;
    if (command.parts === 1 ? sizeBytes !== firstBytes : sizeBytes <= firstBytes) {
      throw invalid(['message', 'sizeBytes'], command.parts === 1 ? 'sizeBytes must be the text\'s UTF-8 length' : 'sizeBytes must exceed the first part\'s length');
    }
    if (sizeBytes > this.maxUploadBytes) throw new AppError('too_large', `The text is larger than ${this.maxUploadBytes} bytes`);
    const original = command.original;
    if (original !== undefined && original.parts !== Math.ceil(original.sizeBytes / ORIGINAL_PART_BYTES)) {
      throw invalid(['message', 'original', 'parts'], `An original of ${original.sizeBytes} bytes comes in ${Math.ceil(original.sizeBytes / ORIGINAL_PART_BYTES)} parts`);
    }
    // Chunks of deleted contents count until the purge worker has removed them (seconds).
    const inWorkspace = { workspace_id: command.workspaceId };
    await this.quotas.chunks.enforce(command.workspaceId, () => this.deps.documents.collection(CHUNKS).count(inWorkspace));
    await this.quotas.contentBytes.enforce(command.workspaceId, () => totalSize(this.deps.documents.collection<ContentDoc>(CONTENTS), command.workspaceId), sizeBytes);
    const now = this.deps.clock.now();
    const contentId = newId('cnt', now.getTime());
    // The key is durable before any event sealed with it is appended.
    const key = await this.texts.newKey();
    const event = {
      contentId,
      collectionId: command.collectionId,
      workspaceId: command.workspaceId,
      name: command.name,
      source: command.source ?? null,
      mimeType: command.mimeType,
      metadata: command.metadata ?? {},
      text: this.texts.seal(contentId, command.text, key),
      textBytes: firstBytes,
      sizeBytes,
      ...(command.parts > 1 ? { parts: command.parts } : {}),
      ...(original === undefined ? {} : { original }),
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
      async (state) => ({
        kind: 'append-text' as const,
        access: accessOf(command),
        part: command.part,
        // Sealed like the first part (the decider refuses the part if the content is not the caller's).
        text: state.status === 'active' ? this.texts.seal(command.contentId, command.text, await this.texts.keyOf(state)) : command.text,
        bytes: Buffer.byteLength(command.text),
      }),
      { metadata: { actor: command.actor, workspaceId: command.workspaceId } },
    );
    await this.deps.readYourWrites.settle(result.position);
    return this.contentRecord(command.contentId);
  }

  async delete(command: ValidRequestIn<KnowledgeMessages, 'deleteContent'>): Promise<ReplyIn<KnowledgeMessages, 'deleteContent'>> {
    const { contentId } = command;
    const access = accessOf(command);
    const result = await handleCommand(
      this.deps.events,
      contentAggregate,
      contentStreamId(contentId),
      { kind: 'delete', access, cause: 'request', at: this.deps.clock.now().toISOString() },
      { retries: RETRIES, metadata: { actor: command.actor, workspaceId: command.workspaceId } },
    ).catch(stillPurging(() => this.purges.pendingFor(contentId, access)));
    // Answered once erased: its key shredded and its stream deleted (the erasure reactor), then
    // its chunk records and points gone (the purge, which follows the erasure). A repeated DELETE
    // (nothing appended) follows the erasure the first one set off, up to the stream's head. Its
    // stream named: a parked erasure is a 503 (an operator's matter), never a 200 for an erasure that did not happen.
    const erased = async (): Promise<void> => {
      if (result !== null) await this.deps.readYourWrites.settleReactor(KNOWLEDGE_ERASURE, result.position ?? result.head, undefined, [contentStreamId(contentId)]);
      await this.deps.readYourWrites.settleWithin((timeoutMs) => this.deps.chunksPurged([contentId], timeoutMs));
    };
    return { contentId, erasing: await outlastsWait(erased()) };
  }

  /**
   * Processing starts over. With a kept original, from a text extracted from it again (an
   * extractor may have improved since): it replaces the stored text, in parts like an upload's.
   */
  async reprocess(command: ValidRequestIn<KnowledgeMessages, 'reprocessContent'>): Promise<ReplyIn<KnowledgeMessages, 'reprocessContent'>> {
    const access = accessOf(command);
    const current = visibleContent(await readAggregateState(this.deps.events, contentAggregate, contentStreamId(command.contentId)), access);
    // The refusal first: opening the original and reading it again (up to 20 MiB, in a reader
    // process) is work for nothing when the decider will refuse. It decides again below.
    assertReprocessable(current);
    const original = await this.originals.readAll(current);
    const parts = original === null ? null : textParts((await this.extract({ filename: original.file.name, mimeType: original.file.contentType, bytes: original.bytes }, command.workspaceId)).text, CONTENT_PART_CHARS);
    if (parts !== null && parts.length === 0) throw invalid(['message', 'contentId'], 'The original file holds no text any more', 'string_too_short');
    const metadata = { actor: command.actor, workspaceId: command.workspaceId };
    const result = await handleCommand(
      this.deps.events,
      contentAggregate,
      contentStreamId(command.contentId),
      async (state) => {
        const base = { kind: 'reprocess' as const, access, requestedBy: command.actor, at: this.deps.clock.now().toISOString() };
        const first = parts?.[0];
        if (parts === null || first === undefined || state.status !== 'active') return base;
        const text = { first: this.texts.seal(command.contentId, first, await this.texts.keyOf(state)), firstBytes: Buffer.byteLength(first), sizeBytes: parts.reduce((n, p) => n + Buffer.byteLength(p), 0), parts: parts.length };
        return { ...base, text };
      },
      { retries: RETRIES, metadata },
    );
    for (const [i, text] of (parts ?? []).slice(1).entries()) {
      await this.appendText({ ...command, part: i + 1, text });
    }
    await this.deps.readYourWrites.settle(result.position);
    return this.contentRecord(command.contentId);
  }

  async putOriginalPart(command: ValidRequestIn<KnowledgeMessages, 'putContentOriginalPart'>): Promise<ReplyIn<KnowledgeMessages, 'putContentOriginalPart'>> {
    const position = await this.originals.storePart({ contentId: command.contentId, access: accessOf(command), part: command.part, bytes: Buffer.from(command.data, 'base64') });
    await this.deps.readYourWrites.settle(position);
    return { contentId: command.contentId, kept: position !== null };
  }

  async getOriginalPart(query: ValidRequestIn<KnowledgeMessages, 'getContentOriginalPart'>): Promise<ReplyIn<KnowledgeMessages, 'getContentOriginalPart'>> {
    const { file, bytes } = await this.originals.readPart(query.contentId, accessOf(query), query.part);
    return { name: file.name, contentType: file.contentType, sizeBytes: file.sizeBytes, parts: file.parts, data: bytes.toString('base64') };
  }

  /**
   * A text change is embedded before it is recorded, and only when the content allows the edit:
   * a refused edit (a content being processed, a chunk gone) costs no embedding. Embedded before
   * the command takes its turn on the content's stream when the read model shows the content
   * completed (a model call can take seconds: the stream's other writers do not wait for it);
   * else inside, once the decider has accepted (the read model was behind). The response waits
   * until the new vector is searchable.
   */
  async updateChunk(command: ValidRequestIn<KnowledgeMessages, 'updateChunk'>): Promise<ReplyIn<KnowledgeMessages, 'updateChunk'>> {
    assertIndexableMetadata(command.metadata);
    const { chunk, collection } = await this.chunkWithCollection(command);
    const text = command.content ?? chunk.content;
    const metadata = command.metadata ?? chunk.metadata;
    const changesText = text !== chunk.content;
    // Nothing to change (the same text and metadata again, keys in any order, or neither given):
    // answered with the chunk as it stands, as an empty edit always was; nothing is recorded.
    if (!changesText && isDeepStrictEqual(metadata, chunk.metadata)) return toChunkRecord(chunk);
    // Only a text change needs the model (a metadata edit works while it is not configured here).
    const provider = changesText ? providerOf(this.deps.embeddings, collection.model) : null;
    if (provider !== null) {
      const [tokens] = await provider.tokenize([text]);
      if (tokens !== undefined && tokens.count > collection.model.maxInputTokens) {
        throw invalid(['message', 'content'], `The chunk has ${tokens.count} tokens; ${collection.model.model} reads at most ${collection.model.maxInputTokens}`);
      }
    }
    const access = accessOf(command);
    const listed = provider === null ? null : await this.deps.documents.collection<ContentDoc>(CONTENTS).get(chunk.content_id);
    /** Embedded at most once, should the command be decided again (after a concurrent write). */
    let vector: string | undefined = provider !== null && listed?.status === 'completed' ? await embedOne(provider, text) : undefined;
    const result = await handleCommand(
      this.deps.events,
      contentAggregate,
      contentStreamId(chunk.content_id),
      async (state) => {
        // The decider's refusals first, before the embedding the edit would carry.
        const content = contentOfChangeableChunk(state, access, chunk.id, 'edit');
        if (provider !== null) vector ??= await embedOne(provider, text);
        return {
          kind: 'edit-chunk' as const,
          access,
          chunkId: chunk.id,
          chunkIndex: chunk.chunk_index,
          index: collection.model.index,
          source: chunk.source,
          text: this.texts.seal(chunk.content_id, text, await this.texts.keyOf(content)),
          metadata,
          vector: vector ?? null,
          editedBy: command.actor,
          at: this.deps.clock.now().toISOString(),
        };
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
    if (chunk === null || !mayAccess(access, { workspaceId: chunk.workspace_id, collectionId: chunk.collection_id }) || (await this.purges.covers(chunk))) throw notFound('Chunk');
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

async function embedOne(provider: EmbeddingProvider, text: string): Promise<string> {
  const [embedded] = await provider.embedDocuments([text]);
  if (embedded === undefined) throw new Error('the embedding provider returned no vector');
  return encodeVector(embedded);
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
