import type { FastifyInstance, FastifyRequest } from 'fastify';
import multipart from '@fastify/multipart';
import type { z } from 'zod';
import { AppError, invalid, type ValidationIssue } from '@lore/platform/kernel';
import { zodIssuesToValidationIssues, type Upload } from '@lore/platform/http';

/** Text fields of an upload: a few, and small (the file carries the bulk). */
const FIELD_LIMITS = { fields: 20, fieldSize: 256 * 1024, files: 1, parts: 22 };

/**
 * Registers the routes that declare `upload` in a scope of their own where multipart/form-data
 * is read; nothing else parses it. @fastify/multipart adds async hooks (onRequest, onResponse)
 * to every route of the scope it is registered in: at the root they cost every request two
 * promises and a socket listener, for the few routes that take files. Other routes answer a
 * multipart body with 415 (they read JSON only).
 */
export function registerUploadRoutes(app: FastifyInstance, registerRoutes: (scope: FastifyInstance) => void): void {
  // Loaded with the other plugins when the server starts (Fastify queues registrations); the
  // scope inherits the hooks and the JSON parser registered on `app` before this call.
  void app.register(async (scope) => {
    await scope.register(multipart, { limits: FIELD_LIMITS, throwFileSizeLimit: true });
    registerRoutes(scope);
  });
}

/**
 * Reads the one file part `file` (413 past `maxBytes`) and the text fields, validating the
 * fields with the route's schema (422 issues located in `body`, as FastAPI reports form fields).
 */
export async function readUpload(request: FastifyRequest, spec: { readonly fields: z.ZodObject; readonly maxBytes: number }, issues: ValidationIssue[]): Promise<Upload | null> {
  const fields: Record<string, string> = {};
  const file = await readParts(request, spec.maxBytes, fields, issues).catch((error: unknown) => {
    throw malformed(error);
  });
  if (file === null) issues.push({ loc: ['body', 'file'], msg: 'Field required', type: 'missing' });
  const parsed = spec.fields.safeParse(fields);
  if (!parsed.success) issues.push(...zodIssuesToValidationIssues(parsed.error.issues, 'body', fields, spec.fields));
  if (file === null || !parsed.success) return null;
  return { file, fields: parsed.data };
}

async function readParts(request: FastifyRequest, maxBytes: number, fields: Record<string, string>, issues: ValidationIssue[]): Promise<Upload['file'] | null> {
  let file: Upload['file'] | null = null;
  for await (const part of request.parts({ limits: { ...FIELD_LIMITS, fileSize: maxBytes } })) {
    if (part.type === 'file') {
      if (part.fieldname !== 'file' || file !== null) {
        await part.toBuffer();
        issues.push({ loc: ['body', part.fieldname], msg: 'Only one file, in the field "file", is accepted', type: 'value_error' });
        continue;
      }
      file = { filename: part.filename, mimeType: part.mimetype, bytes: await part.toBuffer() };
    } else {
      fields[part.fieldname] = typeof part.value === 'string' ? part.value : String(part.value);
    }
  }
  return file;
}

/**
 * The multipart parser (busboy) reports a request it cannot read with plain Errors, which
 * would be answered 500: a Content-Type without its boundary, a body cut short or with a
 * malformed part header. Those are the client's to fix (422 in the documented shape), and so is a
 * form with a second file or too many fields (@fastify/multipart's 413s for those). Errors that
 * carry another status (a file over its size: 413) and our own pass through unchanged.
 */
function malformed(error: unknown): unknown {
  // Too many parts is the form's shape, not its size: a 422 that says what an upload may hold.
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'FST_FILES_LIMIT') return invalid(['body', 'file'], 'Only one file, in the field "file", is accepted per upload');
  if (code === 'FST_PARTS_LIMIT' || code === 'FST_FIELDS_LIMIT') {
    return invalid(['body'], `An upload holds one file and at most ${FIELD_LIMITS.fields} text fields`);
  }
  if (error instanceof AppError || !(error instanceof Error) || typeof (error as { statusCode?: unknown }).statusCode === 'number') return error;
  if (/boundary not found/i.test(error.message)) {
    return invalid(['header', 'content-type'], 'multipart/form-data needs a boundary parameter (Content-Type: multipart/form-data; boundary=...)');
  }
  return invalid(['body'], `The multipart/form-data body could not be read: ${error.message}`);
}
