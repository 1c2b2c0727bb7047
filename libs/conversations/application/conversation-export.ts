import type { ConversationRecord, MessageRecord } from '@lore/conversations/contracts';

/**
 * A readable transcript of the active path: the title, what the conversation is, then each
 * message under its role and time. Content is written as given (it is usually Markdown
 * already); tool calls and attachments are listed as JSON below the message.
 */
export function exportMarkdown(conversation: ConversationRecord, path: readonly MessageRecord[], totalMessages: number, exportedAt: string): string {
  const lines = [`# ${conversation.title ?? 'Untitled conversation'}`, ''];
  lines.push(`- Conversation: \`${conversation.id}\``);
  lines.push(`- Owner: \`${conversation.user_id}\` · status ${conversation.status}`);
  lines.push(`- Created ${conversation.created_at} · exported ${exportedAt}`);
  lines.push(`- Active path: ${path.length} of ${totalMessages} messages${totalMessages > path.length ? ' (other branches are in the JSON export)' : ''}`);
  if (conversation.tags.length > 0) lines.push(`- Tags: ${conversation.tags.join(', ')}`);
  for (const message of path) {
    lines.push('', `## ${message.role} · ${message.sender_id} · ${message.sent_at}`, '', message.content);
    if (message.tool_calls.length > 0) lines.push('', '```json', JSON.stringify(message.tool_calls, null, 2), '```');
    if (message.attachments.length > 0) lines.push('', 'Attachments:', ...message.attachments.map((a) => `- \`${JSON.stringify(a)}\``));
  }
  return `${lines.join('\n')}\n`;
}
