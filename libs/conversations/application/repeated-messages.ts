import { AppError } from '@lore/platform/kernel';
import type { SealedFields } from '@lore/platform/crypto';
import { childrenOf, liveMessage, messageOf, type LiveConversation, type MessageNode } from '@lore/conversations/domain';
import type { MessageContent } from './conversation-content';

/** A message an append or an edit is about to write. */
export type NewMessage = {
  readonly role: string;
  readonly messageType: string;
  readonly senderId: string;
  readonly clientMessageId: string | null;
  readonly sentAt: string | null;
  readonly content: MessageContent;
} & ({ readonly kind: 'append'; readonly parentMessageId: string | null } | { readonly kind: 'edit'; readonly conversationId: string; readonly editOf: string });

/**
 * Which live message a write repeats (a client's retry), by content checksum. Checksums are
 * sealed in the folded conversation; the ones opened here, and the one each write sealed, are
 * remembered by the folded message that holds them: an append compares its checksum with the
 * message the conversation ends at, which the previous append wrote, so most appends open
 * nothing (an AES-GCM decryption spared). Held weakly: an entry lives as long as the folded
 * state it belongs to (the aggregate state cache's), so a deleted message or an evicted
 * conversation takes its checksum along; a state folded anew opens its checksums again.
 */
export class RepeatedMessages {
  private readonly checksums = new WeakMap<MessageNode, string>();

  constructor(private readonly sealed: SealedFields<string>) {}

  /**
   * The live message a write repeats, if any: the one with the client's id (409 if its
   * content differs), or one with the same checksum, role and sender in the same place: under
   * the same parent for an append (without a parent: also the message the active path ends
   * at, where a retry whose first attempt got through finds it), among the edited copies of
   * the same message for an edit. Only the candidates' sealed checksums are opened, each once.
   */
  async find(conversation: LiveConversation, message: NewMessage): Promise<string | null> {
    if (message.clientMessageId !== null) {
      const id = conversation.clientIds.get(message.clientMessageId);
      const node = id === undefined ? null : liveMessage(conversation, id);
      if (node === null) return null;
      if ((await this.checksumOf(node)) !== message.content.checksum) {
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
      if ((await this.checksumOf(node)) === message.content.checksum) return node.messageId;
    }
    return null;
  }

  /** The checksum a write just sealed into `node`. */
  remember(node: MessageNode, checksum: string): void {
    this.checksums.set(node, checksum);
  }

  private async checksumOf(node: MessageNode): Promise<string> {
    const known = this.checksums.get(node);
    if (known !== undefined) return known;
    const opened = await this.sealed.open(node.messageId, node.checksum);
    this.checksums.set(node, opened);
    return opened;
  }
}
