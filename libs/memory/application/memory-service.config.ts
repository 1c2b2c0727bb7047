import { z } from 'zod';
import { memoryConfig } from '@lore/memory/contracts';
import { conversationsConfig } from '@lore/conversations/contracts';

/**
 * The service reads its own slice, and the conversations slice its edge reads (the edge sends
 * the conversations service a message to read a conversation for extraction): a service's
 * configuration holds at least what its edge reads (apps/contexts.ts).
 */
export const memoryServiceConfig = z.intersection(memoryConfig, conversationsConfig.transform((conversations) => ({ conversations })));
export type MemoryServiceConfig = z.output<typeof memoryServiceConfig>;
