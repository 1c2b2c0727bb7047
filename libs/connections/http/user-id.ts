import { z } from 'zod';

/** The user a connections request acts for (SPEC's `user_id`). */
export const userId = z.string().min(1).max(255);

/** `?user_id=`: whose connection or session a read or change concerns. */
export const UserIdQuery = z.object({ user_id: userId.optional().describe("Owner; may be omitted (a JWT caller's `sub`, an API key's creator). Naming anyone else takes a workspace administrator, or a key one minted: 403 otherwise") });
