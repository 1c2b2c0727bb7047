import { z } from 'zod';
import { envInt, quotaEnv, workspaceLimitsEnv, WorkspaceQuota } from '@lore/platform/kernel';

/**
 * Sizes the spec leaves open (SPEC §8), from the environment (README, Configuration). The
 * service and the gateway read the same slice and both enforce it; a message's content plus
 * its tool calls, attachments and metadata stays well below the 1 MiB a NATS message and an
 * EventStoreDB event carry.
 */
export interface ConversationLimits {
  readonly maxTitleChars: number;
  readonly maxContentChars: number;
  readonly maxTags: number;
  readonly maxTagChars: number;
  readonly maxMetadataBytes: number;
  readonly maxToolCallsBytes: number;
  readonly maxAttachmentsBytes: number;
  readonly maxCollections: number;
}

export interface ContextDefaults {
  readonly maxTokens: number;
  readonly maxTokensLimit: number;
  readonly memoryLimit: number;
  readonly chunkLimit: number;
  readonly messageLimit: number;
}

export const conversationsConfig = z
  .object({
    CONVERSATION_TITLE_MAX_CHARS: envInt(500),
    CONVERSATION_MESSAGE_MAX_CHARS: envInt(100_000),
    CONVERSATION_MAX_TAGS: envInt(20),
    CONVERSATION_TAG_MAX_CHARS: envInt(100),
    CONVERSATION_METADATA_MAX_BYTES: envInt(16 * 1024),
    CONVERSATION_TOOL_CALLS_MAX_BYTES: envInt(64 * 1024),
    CONVERSATION_ATTACHMENTS_MAX_BYTES: envInt(64 * 1024),
    CONVERSATION_MAX_COLLECTIONS: envInt(20),
    CONTEXT_DEFAULT_MAX_TOKENS: envInt(2_000),
    CONTEXT_MAX_TOKENS: envInt(32_000),
    CONTEXT_DEFAULT_MEMORIES: envInt(5),
    CONTEXT_DEFAULT_CHUNKS: envInt(5),
    CONTEXT_DEFAULT_MESSAGES: envInt(50),
    /** Conversations a workspace may hold (every user's together); 0 is unlimited. */
    QUOTA_CONVERSATIONS: quotaEnv(100_000),
    LORE_WORKSPACE_LIMITS: workspaceLimitsEnv,
  })
  .transform((e): { limits: ConversationLimits; context: ContextDefaults; quota: WorkspaceQuota } => ({
    quota: new WorkspaceQuota('conversations', 'QUOTA_CONVERSATIONS', e.QUOTA_CONVERSATIONS, e.LORE_WORKSPACE_LIMITS),
    limits: {
      maxTitleChars: e.CONVERSATION_TITLE_MAX_CHARS,
      maxContentChars: e.CONVERSATION_MESSAGE_MAX_CHARS,
      maxTags: e.CONVERSATION_MAX_TAGS,
      maxTagChars: e.CONVERSATION_TAG_MAX_CHARS,
      maxMetadataBytes: e.CONVERSATION_METADATA_MAX_BYTES,
      maxToolCallsBytes: e.CONVERSATION_TOOL_CALLS_MAX_BYTES,
      maxAttachmentsBytes: e.CONVERSATION_ATTACHMENTS_MAX_BYTES,
      maxCollections: e.CONVERSATION_MAX_COLLECTIONS,
    },
    context: {
      maxTokens: e.CONTEXT_DEFAULT_MAX_TOKENS,
      maxTokensLimit: e.CONTEXT_MAX_TOKENS,
      memoryLimit: e.CONTEXT_DEFAULT_MEMORIES,
      chunkLimit: e.CONTEXT_DEFAULT_CHUNKS,
      messageLimit: e.CONTEXT_DEFAULT_MESSAGES,
    },
  }));

export type ConversationsConfig = z.output<typeof conversationsConfig>;

export const CONVERSATION_STATUSES = ['active', 'archived'] as const;
export const CONVERSATION_SORT_FIELDS = ['id', 'updated_at', 'created_at', 'title'] as const;
export const MESSAGE_SORT_FIELDS = ['created_at', 'updated_at', 'sent_at', 'id'] as const;
export const EXPORT_FORMATS = ['json', 'markdown'] as const;

/** Whether memories are extracted in the background after each user message of a conversation. */
export const MEMORY_EXTRACTION_SETTINGS = ['off', 'after_user_turn'] as const;
