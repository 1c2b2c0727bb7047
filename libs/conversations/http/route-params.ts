import { z } from 'zod';
import { ConversationId, MessageId, UserId } from '@lore/conversations/contracts';

/** Path and query parts every conversation and message route shares. */
export const ConversationParams = z.object({ conversation_id: ConversationId });
export const MessageParams = z.object({ message_id: MessageId });
export const UserIdQuery = z.object({ user_id: UserId.optional().describe("The user acted for (default: a JWT's `sub`, a key's creator). Another user takes a workspace administrator, or a key one minted: 403 otherwise.") });

/** Conversation messages carry the acting owner with an API key's collection bound (what the context endpoint may search). */
export const WITH_COLLECTIONS = { collections: true } as const;
