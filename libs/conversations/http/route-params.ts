import { z } from 'zod';
import { ConversationId, MessageId, UserId } from '@lore/conversations/contracts';

/** Path and query parts every conversation and message route shares. */
export const ConversationParams = z.object({ conversation_id: ConversationId });
export const MessageParams = z.object({ message_id: MessageId });
export const UserIdQuery = z.object({ user_id: UserId.optional().describe("API-key callers: the user acted for (default: the key's creator). JWT callers: omit, or their own `sub`.") });
