import { z } from 'zod';
import { MEMORY_TYPES, type MemoryLimits } from './memory.limits';

export const MemoryRecord = z
  .object({
    memory_id: z.string(),
    user_id: z.string(),
    memory: z.string(),
    memory_type: z.enum(MEMORY_TYPES),
    topics: z.array(z.string()),
    metadata: z.record(z.string(), z.unknown()),
    created_at: z.string().describe('ISO 8601 date-time'),
    updated_at: z.string().describe('ISO 8601 date-time'),
  })
  .meta({ id: 'MemoryRecord' });
export type MemoryRecord = z.infer<typeof MemoryRecord>;

export const MemoryVersion = z
  .object({
    version: z.number().int().describe('1 for the first version, then one more per replacement'),
    event: z.enum(['created', 'replaced']),
    memory: z.string(),
    topics: z.array(z.string()),
    metadata: z.record(z.string(), z.unknown()),
    recorded_at: z.string(),
  })
  .meta({ id: 'MemoryVersion' });
export type MemoryVersion = z.infer<typeof MemoryVersion>;

const userIdField = z.string().min(1).max(255);

/** Request schemas depend on the configured limits, so they are built from them. */
export function memoryRequestSchemas(limits: MemoryLimits) {
  const memoryText = z.string().min(1).max(limits.maxMemoryChars);
  const topics = z.array(z.string().min(1).max(limits.maxTopicChars)).max(limits.maxTopics);
  const metadata = z.record(z.string(), z.unknown()).refine((value) => Buffer.byteLength(JSON.stringify(value)) <= limits.maxMetadataBytes, {
    message: `Metadata must be at most ${limits.maxMetadataBytes} bytes of JSON`,
  });

  const createBody = z.object({
    user_id: userIdField.optional().describe('Owner. Required for API-key callers; a JWT caller may omit it or must pass its own `sub`.'),
    memory: memoryText,
    memory_type: z.enum(MEMORY_TYPES).nullish().describe('Defaults to `user`'),
    topics: topics.nullish(),
    metadata: metadata.nullish(),
  });

  const replaceBody = z.object({
    memory: memoryText,
    user_id: userIdField.nullish(),
    topics: topics.nullish().describe('null or absent keeps the current topics'),
    metadata: metadata.nullish().describe('null or absent keeps the current metadata'),
  });

  return { createBody, replaceBody };
}

export const MemoryIdParams = z.object({ memory_id: z.string().min(1).max(100) });
export const UserIdQuery = z.object({ user_id: userIdField.optional() });

export const CreateMemoryResponse = z.object({ memory_id: z.string(), message: z.string(), memory: MemoryRecord });
export const ReplaceMemoryResponse = z.object({
  memory_id: z.string(),
  message: z.string(),
  old_memory: MemoryRecord,
  new_memory: MemoryRecord,
});
export const DeleteMemoryResponse = z.object({ memory_id: z.string(), message: z.string() });
export const DeleteUserMemoriesResponse = z.object({ user_id: z.string(), deleted_count: z.number().int(), message: z.string() });
export const MemoryHistoryResponse = z.object({ memory_id: z.string(), versions: z.array(MemoryVersion) });
export const MemoryExportResponse = z.object({
  user_id: z.string(),
  workspace_id: z.string(),
  exported_at: z.string(),
  memories: z.array(MemoryRecord.extend({ history: z.array(MemoryVersion) })),
});
