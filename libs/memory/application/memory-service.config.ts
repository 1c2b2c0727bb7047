import { z } from 'zod';
import { memoryConfig } from '@lore/memory/contracts';
import { conversationsConfig } from '@lore/conversations/contracts';

/**
 * The service reads its own slice, and the conversations slice: extraction from a
 * `conversationId` sends the conversations service its active-path query, built from the same
 * configuration that service reads.
 */
export const memoryServiceConfig = z.intersection(memoryConfig, conversationsConfig.transform((conversations) => ({ conversations })));
export type MemoryServiceConfig = z.output<typeof memoryServiceConfig>;
