import { z } from 'zod';

/**
 * A piece of a content's text as stored in an event: sealed under the content's own data
 * key (`{ sealed: '<key id>:<AES-GCM text>' }`, bound to the content id), so that deleting the
 * content shreds its key and every copy of its words becomes noise, wherever it lies (the
 * log, a backup, a collection's re-index events). A plain string is an event written before
 * knowledge was sealed (README: "Knowledge erasure").
 */
export const ContentText = z.union([z.string(), z.object({ sealed: z.string() })]);
export type ContentText = z.infer<typeof ContentText>;

