import { z } from 'zod';
import { MEMORY_TYPES } from './memory.limits';

/** Request/reply subjects served by the memory service. */
export const MemorySubjects = {
  create: 'memory.command.create',
  replace: 'memory.command.replace',
  delete: 'memory.command.delete',
  deleteAllOfUser: 'memory.command.delete-all-of-user',
  get: 'memory.query.get',
  list: 'memory.query.list',
  history: 'memory.query.history',
  export: 'memory.query.export',
} as const;

/** Who acts and for whom: resolved by the gateway from the credential (ARCHITECTURE §4). */
const Scope = z.object({
  workspaceId: z.string().min(1),
  userId: z.string().min(1),
  /** `user:<sub>` or `api_key:<id>`, recorded in event metadata for audit. */
  actor: z.string().min(1),
});

const Content = z.object({
  topics: z.array(z.string()).nullish(),
  metadata: z.record(z.string(), z.unknown()).nullish(),
});

export const CreateMemoryCommand = Scope.extend(Content.shape).extend({
  memory: z.string(),
  memoryType: z.enum(MEMORY_TYPES),
});
export type CreateMemoryCommand = z.infer<typeof CreateMemoryCommand>;

export const ReplaceMemoryCommand = Scope.extend(Content.shape).extend({ memoryId: z.string(), memory: z.string() });
export type ReplaceMemoryCommand = z.infer<typeof ReplaceMemoryCommand>;

export const MemoryRef = Scope.extend({ memoryId: z.string() });
export type MemoryRef = z.infer<typeof MemoryRef>;

export const UserScope = Scope;
export type UserScope = z.infer<typeof UserScope>;

export const ListMemoriesQuery = Scope.extend({
  memoryType: z.enum(MEMORY_TYPES).optional(),
  topics: z.array(z.string()).optional(),
  search: z.string().optional(),
  sortBy: z.enum(['created_at', 'updated_at']),
  sortOrder: z.enum(['asc', 'desc']),
  skip: z.number().int().min(0),
  limit: z.number().int().min(1),
  cursor: z.string().optional(),
});
export type ListMemoriesQuery = z.infer<typeof ListMemoriesQuery>;
