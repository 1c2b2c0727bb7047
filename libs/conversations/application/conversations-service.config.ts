import { z } from 'zod';
import { conversationsConfig } from '@lore/conversations/contracts';
import { knowledgeConfig } from '@lore/knowledge/contracts';
import { memoryConfig } from '@lore/memory/contracts';

/**
 * The service reads its own slice plus the memory and knowledge slices: it sends those
 * contexts' messages (collection checks, searches for the context endpoint), built from the
 * same configuration their services read. Its edge needs the conversations slice only.
 */
export const conversationsServiceConfig = z.intersection(
  conversationsConfig,
  z.intersection(
    memoryConfig.transform((memory) => ({ memory })),
    knowledgeConfig.transform((knowledge) => ({ knowledge })),
  ),
);
export type ConversationsServiceConfig = z.output<typeof conversationsServiceConfig>;
