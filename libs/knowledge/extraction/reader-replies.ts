import { z } from 'zod';

import { MAX_TITLE_CHARS } from './extraction-limits';
import { FILE_FIELD, MIME_OF, type FileFormat } from './file-format';
import { MAX_ERROR_CHARS, type ProcessReply } from './reader-protocol';

/**
 * A reader's message, checked before the service acts on it. A reader runs parsers on hostile
 * files: one whose parser was made to run code could send anything over its channel (`null`, a
 * sparse array for text that counts as one character and joins to gigabytes, an error with any
 * code and size). The service takes only what the real reader sends (extraction.worker.ts);
 * anything else ends that reader. Kept apart from reader-protocol.ts so the reader's bundle
 * carries no schema library.
 */
const id = z.number().int().nonnegative();

/** A reader's errors are the uploader's (422 at the file, from extract-text.ts), and nothing else. */
const validationError = z
  .object({
    code: z.literal('validation'),
    message: z.string().max(MAX_ERROR_CHARS),
    // Located at the file (FILE_FIELD), as every error of extract-text.ts is: the route maps that
    // location to the request's, and a location of the reader's choosing has no place there.
    issues: z.array(z.object({ loc: z.tuple([z.literal(FILE_FIELD[0])]), msg: z.string().max(MAX_ERROR_CHARS), type: z.string().max(100) }).strict()).max(1),
  })
  .strict();

/** The extracted text's facts; the text itself came before, in pieces. */
const extracted = z
  .object({
    format: z.enum(Object.keys(MIME_OF) as [FileFormat, ...FileFormat[]]),
    mimeType: z.string().max(200),
    title: z.string().max(MAX_TITLE_CHARS).nullable(),
    pages: z.number().int().nonnegative().nullable(),
  })
  .strict();

const outcome = z.discriminatedUnion('ok', [z.object({ ok: z.literal(true), extracted }).strict(), z.object({ ok: z.literal(false), error: validationError }).strict()]);

const reply = z.union([
  z.string(),
  z.object({ ready: z.literal(true) }).strict(),
  z.object({ id, started: z.literal(true) }).strict(),
  z.object({ id, outcome }).strict(),
  z.object({ id, failure: z.string().max(MAX_ERROR_CHARS) }).strict(),
]);

/** The reply, or null when `message` is not one the real reader sends. */
export function parseReply(message: unknown): ProcessReply | null {
  const parsed = reply.safeParse(message);
  return parsed.success ? parsed.data : null;
}
