import { createHash } from 'node:crypto';
import { SealedFields, type Keyring } from '@lore/platform/crypto';

/** The sealed part of a conversation: what its user wrote about it. */
export interface ConversationContent {
  readonly title: string | null;
  readonly tags: string[];
  readonly metadata: Record<string, unknown>;
}

/** The sealed part of a message, under the message's own key. */
export interface MessageContent {
  readonly content: string;
  readonly checksum: string;
  readonly tool_calls: Array<Record<string, unknown>>;
  readonly attachments: Array<Record<string, unknown>>;
  readonly tags: string[];
  readonly meta_data: Record<string, unknown>;
}

export interface ConversationSeals {
  readonly conversations: SealedFields<ConversationContent>;
  readonly messages: SealedFields<MessageContent>;
  /** A message's checksum on its own, under the message's key: what recognising a retry opens. */
  readonly checksums: SealedFields<string>;
  /** A branch summary (context compaction), under the key of the message it runs through. */
  readonly summaries: SealedFields<string>;
}

export function conversationSeals(keyring: Keyring): ConversationSeals {
  return { conversations: new SealedFields(keyring, 'Conversation'), messages: new SealedFields(keyring, 'Message'), checksums: new SealedFields(keyring, 'Message'), summaries: new SealedFields(keyring, 'Message') };
}

/** SPEC §2.5 `checksum`: SHA-256 of the UTF-8 content, lower-case hex. */
export function contentChecksum(content: string): string {
  return createHash('sha256').update(content, 'utf8').digest('hex');
}

/** Null when the value's key was shredded (its aggregate was erased): there is nothing left to read. */
export async function openOrNull<T>(sealed: SealedFields<T>, aggregateId: string, value: string): Promise<T | null> {
  try {
    return await sealed.open(aggregateId, value);
  } catch (error) {
    if (error instanceof Error && 'code' in error && error.code === 'not_found') return null;
    throw error;
  }
}
