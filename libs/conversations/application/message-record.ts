import type { MessageAppended } from '@lore/conversations/domain';
import type { MessageContent } from './conversation-content';
import type { MessageRecord } from '@lore/conversations/contracts';

/** A message as stored and shown, from its event and its opened content: one definition for the projection and the append's reply. */
export function messageRecord(d: MessageAppended['data'], content: MessageContent, owner: { readonly workspaceId: string; readonly userId: string }): MessageRecord {
  return {
    id: d.messageId,
    conversation_id: d.conversationId,
    sender_id: d.senderId,
    owner_id: owner.userId,
    workspace_id: owner.workspaceId,
    content: content.content,
    role: d.role,
    message_type: d.messageType,
    tool_calls: content.tool_calls,
    tags: content.tags,
    checksum: content.checksum,
    attachments: content.attachments,
    parent_message_id: d.parentMessageId,
    meta_data: content.meta_data,
    client_message_id: d.clientMessageId,
    edit_of: d.editOf,
    sent_at: d.sentAt,
    created_at: d.createdAt,
    updated_at: d.createdAt,
  };
}
