import type { FindOptions, Page } from './documents.port';

/** Reads a page makes at most to fill itself past dropped documents. */
const FILL_READS = 10;

/**
 * A page of `find` without the documents `dropped` names (those being purged, say): the
 * caller's filter and position as they are, the dropped ones left out of what was read and the
 * rest read on from the page's cursor (at most FILL_READS reads: a page may come back short, its
 * cursor still right). Dropped after reading, not filtered: a filter of them would change under
 * a paging cursor (its fingerprint) as they come and go.
 */
export async function findWithout<T>(
  collection: { find(options: FindOptions): Promise<Page<T>> },
  options: FindOptions & { readonly limit: number },
  dropped: (items: readonly T[]) => Promise<(item: T) => boolean>,
): Promise<Page<T>> {
  const { cursor, skip, ...query } = options;
  let position: Pick<FindOptions, 'cursor' | 'skip'> = cursor !== undefined ? { cursor } : skip !== undefined ? { skip } : {};
  const items: T[] = [];
  let nextCursor: string | null = null;
  for (let read = 0; read < FILL_READS; read++) {
    const page = await collection.find({ ...query, ...position, limit: options.limit - items.length });
    const drop = await dropped(page.items);
    items.push(...page.items.filter((item) => !drop(item)));
    nextCursor = page.nextCursor;
    if (nextCursor === null || items.length >= options.limit) break;
    position = { cursor: nextCursor };
  }
  return { items, nextCursor };
}
