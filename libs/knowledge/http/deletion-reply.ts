import { z } from 'zod';
import { AcceptedReply } from '@lore/platform/http';

/** What a knowledge DELETE answers (a chunk, a content, a collection). */
export const DeletedResponse = z.object({ id: z.string(), message: z.string() });

/** The 202 of a content's or a collection's DELETE, as documented. */
export const ERASURE_UNDER_WAY =
  'Deleted, and no longer listed or searched once the read models have dropped it, but its erasure (every copy of its text made unreadable and gone from the files) did not finish within the request\'s wait; it goes on by itself. ' +
  'Repeat the DELETE to follow it: 202 while it runs, 200 when it finishes within that wait, 404 once nothing of it is left.';

/** 200 once erased; 202 when the erasure is under way (see ERASURE_UNDER_WAY). */
export function deletionReply(id: string, what: 'Content' | 'Collection', erasing: boolean | undefined): z.input<typeof DeletedResponse> | AcceptedReply<z.input<typeof DeletedResponse>> {
  return erasing === true ? new AcceptedReply({ id, message: `${what} deleted; its erasure is under way` }) : { id, message: `${what} deleted` };
}
