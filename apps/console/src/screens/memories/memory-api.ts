import type { LoreClient, Memory } from '@lore/client';
import { cursorPage, type Page } from '../../ui/paging';
import type { MemoryQuery } from './MemoryFilters';

export const MEMORY_PAGE_SIZE = 20;

/** `user_id` only when one is named: the signed-in user's own otherwise. */
export function actingFor(userId: string): { user_id?: string } {
  return userId === '' ? {} : { user_id: userId };
}

/** One page of the memory list, newest first, by cursor. */
export async function memoryPage(lore: LoreClient, query: MemoryQuery, cursor: string | null): Promise<Page<Memory>> {
  const page = await lore.memories.list({
    ...actingFor(query.userId),
    limit: MEMORY_PAGE_SIZE,
    ...(query.memoryType === undefined ? {} : { memory_type: query.memoryType }),
    ...(query.contains === undefined ? {} : { search: query.contains }),
    ...(cursor === null ? {} : { cursor }),
  });
  return cursorPage(page.data, page.next_cursor, page.has_more);
}
