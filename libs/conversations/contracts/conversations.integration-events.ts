import { z } from 'zod';

/**
 * What downstream systems see on `<prefix>.events.{conversation,message,messages}.<type>.<workspace
 * token>` (scheme: `integrationEventSubject` in the transport port). Free of anything a user wrote: subscribers fetch what they may read, and deletion stays permanent.
 */
export const ConversationIntegrationEvent = z.object({
  type: z.enum(['conversation.created', 'conversation.updated', 'conversation.deleted', 'message.created', 'message.updated', 'messages.deleted']),
  event_id: z.string(),
  occurred_at: z.string(),
  workspace_id: z.string(),
  user_id: z.string(),
  conversation_id: z.string(),
  message_ids: z.array(z.string()),
});
export type ConversationIntegrationEvent = z.infer<typeof ConversationIntegrationEvent>;
