import { AppError } from '@lore/platform/kernel';
import type { SealedFields } from '@lore/platform/crypto';
import { childrenOf, liveMessage, messageOf, type LiveConversation, type MessageNode } from '@lore/conversations/domain';
import type { MessageContent } from './conversation-content';

/** What a new message (or an edited copy) is made of, before it is sealed. */
export type NewMessage = {
  readonly role: string;
  readonly messageType: string;
  readonly senderId: string;
  readonly clientMessageId: string | null;
  readonly sentAt: string | null;
  readonly content: MessageContent;
} & ({ readonly kind: 'append'; readonly parentMessageId: string | null } | { readonly kind: 'edit'; readonly conversationId: string; readonly editOf: string });

/**
 * Which live message a write repeats (a client's retry), by content checksum; checksums are
 * sealed in the folded conversation. An append compares its checksum with the message the
 * conversation ends at, which is usually the one the previous append wrote: that write's
 * checksum is remembered against the folded conversation it produced, so the next append on
 * the same cached state opens nothing (an AES-GCM decryption spared). Held weakly and one per
 * state: the entry lives as long as that state (the aggregate state cache's) and no longer, and
 * any other checksum is opened when needed and not kept.
 */
export class RepeatedMessages {
  private readonly latest = new WeakMap<LiveConversation, { readonly messageId: string; readonly checksum: string }>();

  constructor(private readonly sealed: SealedFields<string>) {}

  /**
   * The live message a write repeats, if any: the one with the client's id (409 if its
   * content differs), or one with the same checksum, role and sender in the same place: under
   * the same parent for an append (without a parent: also the message the active path ends
   * at, where a retry whose first attempt got through finds it), among the edited copies of
   * the same message for an edit. Only the candidates' sealed checksums are opened.
   */
  async find(conversation: LiveConversation, message: NewMessage): Promise<string | null> {
    if (message.clientMessageId !== null) {
      const id = conversation.clientIds.get(message.clientMessageId);
      const node = id === undefined ? null : liveMessage(conversation, id);
      if (node === null) return null;
      if ((await this.checksumOf(conversation, node)) !== message.content.checksum) {
        throw new AppError('conflict', `client_message_id ${message.clientMessageId} was already used for a different message in this conversation`);
      }
      return node.messageId;
    }
    let candidates: MessageNode[];
    if (message.kind === 'edit') {
      const original = messageOf(conversation, message.editOf);
      candidates = childrenOf(conversation, original.parentMessageId).filter((node) => node.editOf === original.messageId);
    } else {
      candidates = childrenOf(conversation, message.parentMessageId ?? conversation.currentMessageId);
      const current = message.parentMessageId === null && conversation.currentMessageId !== null ? liveMessage(conversation, conversation.currentMessageId) : null;
      if (current !== null) candidates.push(current);
    }
    for (const node of candidates) {
      if (node.role !== message.role || node.senderId !== message.senderId || node.clientMessageId !== null) continue;
      if ((await this.checksumOf(conversation, node)) === message.content.checksum) return node.messageId;
    }
    return null;
  }

  /** The checksum a write just sealed into message `messageId`, which `conversation` (the state after the write) holds. */
  remember(conversation: LiveConversation, messageId: string, checksum: string): void {
    this.latest.set(conversation, { messageId, checksum });
  }

  private async checksumOf(conversation: LiveConversation, node: MessageNode): Promise<string> {
    const latest = this.latest.get(conversation);
    return latest?.messageId === node.messageId ? latest.checksum : this.sealed.open(node.messageId, node.checksum);
  }
}
