import { conflict, invalid, notFound, type Clock, type Position } from '@lore/platform/kernel';
import type { EventStore } from '@lore/platform/event-store/port';
import { handleCommand, readAggregateState } from '@lore/platform/cqrs';
import { openBytes, sealBytes } from '@lore/platform/crypto';
import type { BlobStore } from '@lore/platform/blobs/port';
import type { DocumentStore } from '@lore/platform/documents/port';
import { contentStreamId, mayAccess, visibleContent, type Access, type LiveContent, type OriginalFile } from '@lore/knowledge/domain';
import type { ContentTexts } from './content-texts';
import { CONTENTS, type ContentDoc } from './knowledge.read-models';
import { contentAggregate } from './content-aggregate';

const partId = (contentId: string, part: number): string => `${contentId}_p${part}`;
/** Associated data of a part: a part cannot be moved to another content or position. */
const partAad = (contentId: string, part: number): string => `${contentId}:original:${part}`;

/**
 * Original files of uploads (README: "Original files"), in the blob store as parts, each
 * sealed under the content's data key, so erasing the content makes every copy noise before
 * the parts themselves are deleted. Declared with the content (`original` in
 * `knowledge.ContentAdded`), stored part by part after it, kept once the last part is in.
 */
export class ContentOriginals {
  constructor(private readonly deps: { readonly events: EventStore; readonly documents: DocumentStore; readonly blobs: BlobStore; readonly texts: ContentTexts; readonly clock: Clock }) {}

  /** Stores part `part` (0-based) of the content's declared original; the last one marks it kept. Returns the position to wait for, if any. */
  async storePart(command: { readonly contentId: string; readonly access: Access; readonly part: number; readonly bytes: Buffer }): Promise<Position | null> {
    const content = await this.content(command.contentId, command.access);
    const original = content.original;
    if (original === null) throw conflict('The content has no original file to store');
    if (original.state === 'kept') return null;
    if (command.part >= original.file.parts) throw invalid(['message', 'part'], `The original has ${original.file.parts} parts`);
    const key = await this.deps.texts.keyOf(content);
    if (key === null) throw conflict('The content was added before originals were kept');
    const sealed = sealBytes(key, command.bytes, partAad(content.contentId, command.part));
    await this.deps.blobs.put(partId(content.contentId, command.part), sealed, {
      contentType: original.file.contentType,
      name: original.file.name,
      workspaceId: content.workspaceId,
      createdAt: this.deps.clock.now(),
    });
    if (command.part !== original.file.parts - 1) return null;
    for (let part = 0; part < original.file.parts - 1; part++) {
      if (!(await this.deps.blobs.has(partId(content.contentId, part)))) throw conflict(`Part ${part} of the original is missing`);
    }
    const result = await handleCommand(this.deps.events, contentAggregate, contentStreamId(content.contentId), { kind: 'keep-original', access: command.access, at: this.deps.clock.now().toISOString() }, { retries: 10 });
    return result.position;
  }

  /** One part of a kept original, opened, with the file's description. */
  async readPart(contentId: string, access: Access, part: number): Promise<{ readonly file: OriginalFile; readonly bytes: Buffer }> {
    await this.assertListed(contentId, access);
    const content = await this.content(contentId, access);
    if (content.original?.state !== 'kept') throw notFound('Original file');
    const { file } = content.original;
    if (part >= file.parts) throw invalid(['message', 'part'], `The original has ${file.parts} parts`);
    return { file, bytes: await this.openPart(content, part) };
  }

  /** The whole kept original (for extracting its text again), or null when none is kept. */
  async readAll(content: LiveContent): Promise<{ readonly file: OriginalFile; readonly bytes: Buffer } | null> {
    if (content.original?.state !== 'kept') return null;
    const parts: Buffer[] = [];
    for (let part = 0; part < content.original.file.parts; part++) parts.push(await this.openPart(content, part));
    return { file: content.original.file, bytes: Buffer.concat(parts) };
  }

  /** Deletes every part of a content's original (idempotent). */
  async delete(contentId: string, file: OriginalFile): Promise<void> {
    for (let part = 0; part < file.parts; part++) await this.deps.blobs.delete(partId(contentId, part));
  }

  private async openPart(content: LiveContent, part: number): Promise<Buffer> {
    const key = await this.deps.texts.keyOf(content);
    const blob = await this.deps.blobs.get(partId(content.contentId, part));
    if (key === null || blob === null) throw notFound('Original file');
    return openBytes(key.key, blob.bytes, partAad(content.contentId, part));
  }

  /**
   * The 404s of readPart, from the contents read model (one document) before the content's
   * stream (its text parts and chunk batches, megabytes for a long content) is read: asking for
   * files that are not there, or another workspace's, stays cheap. Same answers as the stream's:
   * the record shows `original` once kept, and the last part's upload is answered only after
   * that (read-your-writes); a record gone means a content deleted or never there.
   */
  private async assertListed(contentId: string, access: Access): Promise<void> {
    const doc = await this.deps.documents.collection<ContentDoc>(CONTENTS).get(contentId);
    if (doc === null || !mayAccess(access, { workspaceId: doc.workspace_id, collectionId: doc.collection_id })) throw notFound('Content');
    if (doc.original === null || doc.original === undefined) throw notFound('Original file');
  }

  private async content(contentId: string, access: Access): Promise<LiveContent> {
    return visibleContent(await readAggregateState(this.deps.events, contentAggregate, contentStreamId(contentId)), access);
  }
}
