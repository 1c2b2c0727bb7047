import { z } from 'zod';
import { jsonDepth, MAX_JSON_DEPTH } from '@lore/platform/kernel';
import type { ConversationLimits } from './conversations.config';

export const ConversationId = z.string().min(1).max(100);
export const MessageId = z.string().min(1).max(100);
export const UserId = z.string().min(1).max(255);
const CollectionId = z.string().min(1).max(100);

/** Roles and message types are open (`user`, `assistant`, `system`, `tool`, `developer`; `text`, `image`, `tool_call`, …), but short and plain. */
const Label = z
  .string()
  .min(1)
  .max(50)
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.:-]*$/, 'Letters, digits, _ . : - only');

/** A JSON value of at most `maxBytes` when serialised and nesting at most MAX_JSON_DEPTH levels. */
function boundedJson<T extends z.ZodType>(schema: T, maxBytes: number) {
  return schema
    .refine((value) => jsonDepth(value) <= MAX_JSON_DEPTH, { message: `Must nest at most ${MAX_JSON_DEPTH} levels` })
    .refine((value) => jsonDepth(value) > MAX_JSON_DEPTH || Buffer.byteLength(JSON.stringify(value)) <= maxBytes, {
      message: `Must be at most ${maxBytes} bytes of JSON`,
    });
}

/** The user-written fields with the configured limits: one definition for the messages and the HTTP bodies. */
export function conversationFields(limits: ConversationLimits) {
  const tags = z.array(z.string().min(1).max(limits.maxTagChars)).max(limits.maxTags);
  const metadata = boundedJson(z.record(z.string(), z.unknown()), limits.maxMetadataBytes);
  return {
    title: z.string().max(limits.maxTitleChars),
    tags,
    metadata,
    collectionIds: z.array(CollectionId).max(limits.maxCollections),
    content: z.string().min(1).max(limits.maxContentChars),
    role: Label,
    messageType: Label,
    senderId: UserId,
    clientMessageId: z.string().min(1).max(100),
    checksum: z
      .string()
      .regex(/^[0-9a-fA-F]{64}$/, 'A SHA-256 digest: 64 hex digits')
      .describe('SHA-256 of the UTF-8 content, hex; computed by Lore and checked when sent'),
    toolCalls: boundedJson(z.array(z.record(z.string(), z.unknown())), limits.maxToolCallsBytes),
    attachments: boundedJson(z.array(z.record(z.string(), z.unknown())), limits.maxAttachmentsBytes),
    sentAt: z.iso.datetime({ offset: true }),
  };
}
