import { z } from 'zod';
import { AppError, invalid, type RequestOf } from '@lore/platform/kernel';
import { FileReply, route, skipLimitQuery, unkeepableJsonIssue, type EdgeDeps, type HttpRoute, type Send } from '@lore/platform/http';
import { CollectionId, CONTENT_PART_CHARS, CONTENT_STATUSES, contentFields, ContentId, ContentRecord, jsonObject, MAX_CONTENT_NAME_CHARS, ORIGINAL_PART_BYTES, textParts, type KnowledgeConfig, type KnowledgeMessages } from '@lore/knowledge/contracts';
import { ExtractionPool, FILE_FIELD } from '@lore/knowledge/extraction';
import { knowledgeScope } from './knowledge-scope';
import { DeletedResponse, ERASURE_UNDER_WAY, deletionReply } from './deletion-reply';


const ContentParams = z.object({ content_id: ContentId });
const CreateContentBody = z.object({
  collection_id: CollectionId,
  ...contentFields,
  text: z.string().min(1).describe('The content\'s text; files go as multipart/form-data instead'),
  mime_type: z.string().min(1).max(255).optional().describe('Default text/plain'),
});
const UploadFields = z.object({
  collection_id: CollectionId,
  name: contentFields.name.optional().describe('Default: the file name'),
  source: z.string().min(1).max(2048).optional().describe('Default: the file name'),
  metadata: z
    .string()
    .max(64 * 1024)
    .optional()
    .describe('A JSON object, as text'),
});
const ListContentsQuery = skipLimitQuery({ defaultLimit: 100, maxLimit: 1000 }).extend({
  collection_id: CollectionId.optional(),
  status: z.enum(CONTENT_STATUSES).optional(),
  sort_by: z.enum(['created_at', 'updated_at', 'name', 'size']).default('created_at'),
  sort_order: z.enum(['asc', 'desc']).default('desc'),
});
const ContentList = z.object({
  contents: z.array(ContentRecord),
  total_count: z.number().int(),
  skip: z.number().int(),
  limit: z.number().int(),
  has_more: z.boolean(),
});

function parseMetadata(text: string | undefined): Record<string, unknown> | null {
  if (text === undefined || text.trim() === '') return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalid(['body', 'metadata'], 'metadata must be a JSON object', 'json_invalid');
  }
  const parsed = jsonObject.safeParse(value);
  if (!parsed.success) throw invalid(['body', 'metadata'], parsed.error.issues[0]?.message ?? 'metadata must be a JSON object');
  // After the depth check above: the walk is recursive.
  const unkeepable = unkeepableJsonIssue(text, parsed.data, ['body', 'metadata']);
  if (unkeepable !== null) throw new AppError('validation', unkeepable.msg, [unkeepable]);
  return parsed.data;
}

/**
 * Creates a content, sending a long text in parts (each message below the transport's and
 * the event store's limits), then the uploaded file to keep, in parts too. A failure half-way
 * deletes the incomplete content (which erases what of it was stored).
 */
async function createInParts(
  send: Send,
  messages: KnowledgeMessages,
  request: Omit<RequestOf<KnowledgeMessages['createContent']>, 'parts' | 'sizeBytes' | 'original'>,
  file?: { readonly name: string; readonly contentType: string; readonly bytes: Buffer },
): Promise<ContentRecord> {
  const parts = textParts(request.text, CONTENT_PART_CHARS);
  const [first, ...rest] = parts;
  if (first === undefined) throw invalid(['body', 'text'], 'The text is empty');
  const original = file === undefined ? undefined : { name: file.name, contentType: file.contentType, sizeBytes: file.bytes.length, parts: Math.ceil(file.bytes.length / ORIGINAL_PART_BYTES) };
  const created = await send(messages.createContent, { ...request, text: first, parts: parts.length, sizeBytes: Buffer.byteLength(request.text), ...(original === undefined ? {} : { original }) });
  let record = created;
  try {
    for (const [i, text] of rest.entries()) record = await send(messages.appendContentText, { ...knowledgeRef(request), contentId: created.id, part: i + 1, text });
    if (file !== undefined && original !== undefined) {
      for (let part = 0; part < original.parts; part++) {
        const data = file.bytes.subarray(part * ORIGINAL_PART_BYTES, (part + 1) * ORIGINAL_PART_BYTES).toString('base64');
        await send(messages.putContentOriginalPart, { ...knowledgeRef(request), contentId: created.id, part, data });
      }
      // The record as created (processing may have gone on meanwhile), showing its original kept.
      record = { ...record, original: (await send(messages.getContent, { ...knowledgeRef(request), contentId: created.id })).original };
    }
  } catch (error) {
    await send(messages.deleteContent, { ...knowledgeRef(request), contentId: created.id }).catch(() => undefined);
    throw error;
  }
  return record;
}

/** A copy of the uploaded file to keep beside its text, unless over KNOWLEDGE_ORIGINALS_MAX_BYTES. */
function keptOriginal(file: { readonly filename: string; readonly bytes: Buffer }, maxBytes: number): { name: string; bytes: Buffer } | undefined {
  if (file.bytes.length === 0 || file.bytes.length > maxBytes) return undefined;
  return { name: file.filename || 'upload', bytes: file.bytes };
}

const knowledgeRef = (r: { workspaceId: string; actor: string; collections: string[] | null }) => ({ workspaceId: r.workspaceId, actor: r.actor, collections: r.collections });

/** Contents (SPEC §4.4): JSON or file upload, list (also at `/contents`), get, delete, reprocess. */
export function contentRoutes(messages: KnowledgeMessages, config: KnowledgeConfig, log: EdgeDeps['log']): HttpRoute[] {
  const common = { tags: ['Contents'], auth: true } as const;
  // Uploaded files are read in reader processes with limits, never on the event loop (libs/knowledge/extraction).
  const extraction = ExtractionPool.shared(config.extraction, log);
  const list = (path: string, operationId: string): HttpRoute =>
    route({
      ...common,
      method: 'GET',
      path,
      operationId,
      summary: 'List contents',
      permission: ['collections', 'read'],
      query: ListContentsQuery,
      status: 200,
      response: ContentList,
      errors: [404],
      handle: async ({ query, scope, send }) => {
        const page = await send(messages.listContents, {
          ...knowledgeScope(scope),
          skip: query.skip,
          limit: query.limit,
          sortBy: query.sort_by,
          sortOrder: query.sort_order,
          collectionId: query.collection_id,
          status: query.status,
        });
        return { contents: page.items, total_count: page.total, skip: query.skip, limit: query.limit, has_more: query.skip + page.items.length < page.total };
      },
    });
  return [
    route({
      ...common,
      method: 'POST',
      path: '/api/v1/contents',
      operationId: 'create_content',
      summary: 'Add a content: JSON text, or a file (txt, md, html, json, csv, pdf, docx) as multipart/form-data',
      permission: ['collections', 'write'],
      body: CreateContentBody,
      // JSON escapes can double a text's bytes; the text itself is checked against the limit.
      bodyLimit: config.maxUploadBytes * 2 + 1024 * 1024,
      // The extraction's errors name the file (FILE_FIELD); the service's name the message's fields.
      upload: { fields: UploadFields, maxBytes: config.maxUploadBytes, issueLocations: { [FILE_FIELD[0]]: ['body', 'file'], sizeBytes: ['body', 'file'], parts: ['body', 'file'], text: ['body', 'file'], mimeType: ['body', 'file'] } },
      issueLocations: { sizeBytes: ['body', 'text'], parts: ['body', 'text'] },
      status: 201,
      response: ContentRecord,
      errors: [404, 413, 503],
      handle: async ({ body, upload, scope, send }) => {
        if (upload !== null) {
          // A file name becomes the content's name and its kept original's: one clear refusal, before any work.
          if (upload.file.filename.length > MAX_CONTENT_NAME_CHARS) {
            throw invalid(['body', 'file'], `The file name is ${upload.file.filename.length} characters long; at most ${MAX_CONTENT_NAME_CHARS} are accepted (rename the file, or pass "name")`);
          }
          // The refusals first (404 when the collection is not there or not the caller's, 403 when
          // the workspace's quota is full): reading a file, up to a PDF of 20 MiB in a reader
          // process, for a write that will be refused is work for nothing. The service checks
          // them again when the content is created.
          await send(messages.admitContent, { ...knowledgeScope(scope), collectionId: upload.fields.collection_id });
          // The same bytes: the extraction copies them to its reader process and leaves these as they are.
          const original = keptOriginal(upload.file, config.originals.maxBytes);
          // Files are read in turns across workspaces, a few of each at once (FairSlots).
          const extracted = await extraction.extract(upload.file.bytes, { fileName: upload.file.filename, mimeType: upload.file.mimeType, workspaceId: scope.workspaceId });
          const fields = upload.fields;
          return createInParts(send, messages, {
            ...knowledgeScope(scope),
            collectionId: fields.collection_id,
            name: fields.name ?? (upload.file.filename || extracted.title || 'upload'),
            source: fields.source ?? (upload.file.filename || null),
            metadata: parseMetadata(fields.metadata),
            text: extracted.text,
            mimeType: extracted.mimeType,
          }, original === undefined ? undefined : { ...original, contentType: extracted.mimeType });
        }
        if (body === undefined) throw invalid(['body'], 'Field required', 'missing');
        if (Buffer.byteLength(body.text) > config.maxUploadBytes) throw new AppError('too_large', `The text is larger than ${config.maxUploadBytes} bytes`);
        return createInParts(send, messages, {
          ...knowledgeScope(scope),
          collectionId: body.collection_id,
          name: body.name,
          source: body.source ?? null,
          metadata: body.metadata ?? null,
          text: body.text,
          mimeType: body.mime_type ?? 'text/plain',
        });
      },
    }),
    list('/api/v1/contents', 'list_contents'),
    list('/contents', 'list_contents_unprefixed'),
    route({
      ...common,
      method: 'GET',
      path: '/api/v1/contents/:content_id',
      operationId: 'get_content',
      summary: 'Get a content (its processing status and error included)',
      permission: ['collections', 'read'],
      params: ContentParams,
      status: 200,
      response: ContentRecord,
      errors: [404],
      handle: async ({ params, scope, send }) => send(messages.getContent, { ...knowledgeScope(scope), contentId: params.content_id }),
    }),
    route({
      ...common,
      method: 'GET',
      path: '/api/v1/contents/:content_id/file',
      operationId: 'download_content_file',
      summary: 'Download the uploaded file as it came (while it is kept: README, "Original files")',
      permission: ['collections', 'read'],
      params: ContentParams,
      status: 200,
      response: z.string().describe('The file\'s bytes'),
      textResponses: ['application/octet-stream'],
      errors: [404],
      handle: async ({ params, scope, send }) => {
        const ref = { ...knowledgeScope(scope), contentId: params.content_id };
        // The first part says what the file is; each later one is fetched as the client reads.
        const first = await send(messages.getContentOriginalPart, { ...ref, part: 0 });
        return new FileReply(first.contentType, first.name, first.sizeBytes, async function* pieces() {
          yield Buffer.from(first.data, 'base64');
          for (let part = 1; part < first.parts; part++) yield Buffer.from((await send(messages.getContentOriginalPart, { ...ref, part })).data, 'base64');
        });
      },
    }),
    route({
      ...common,
      method: 'DELETE',
      path: '/api/v1/contents/:content_id',
      operationId: 'delete_content',
      summary: 'Delete a content with its chunks and vectors',
      permission: ['collections', 'write'],
      params: ContentParams,
      status: 200,
      response: DeletedResponse,
      accepted: ERASURE_UNDER_WAY,
      errors: [404],
      handle: async ({ params, scope, send }) => {
        const { erasing } = await send(messages.deleteContent, { ...knowledgeScope(scope), contentId: params.content_id });
        return deletionReply(params.content_id, 'Content', erasing);
      },
    }),
    route({
      ...common,
      method: 'POST',
      path: '/api/v1/contents/:content_id/reprocess',
      operationId: 'reprocess_content',
      summary: 'Process a content again (after a failure, or with new settings): from its kept original file, extracted again, else from its text',
      permission: ['collections', 'write'],
      params: ContentParams,
      status: 200,
      response: ContentRecord,
      errors: [404],
      handle: async ({ params, scope, send }) => send(messages.reprocessContent, { ...knowledgeScope(scope), contentId: params.content_id }),
    }),
  ];
}
