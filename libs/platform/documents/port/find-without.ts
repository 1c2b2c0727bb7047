import type { FindOptions, Page } from './documents.port';

/** Reads a page makes at most to fill itself past dropped documents. */
const FILL_READS = 10;
/** Documents a read before an offset takes at most. */
const SKIP_READ = 1_000;

/**
 * A page of `find` without the documents `dropped` names (those being purged, say): the
 * caller's filter and position as they are, the dropped ones left out of what was read and the
 * rest read on from the page's cursor (at most FILL_READS reads: a page may come back short, its
 * cursor still right). Dropped after reading, not filtered: a filter of them would change under
 * a paging cursor (its fingerprint) as they come and go. An offset (`skip`) counts the documents
 * shown, not those dropped (a total leaves them out, so the pages would overlap and end early):
 * the documents before it are read from the start, as an engine's offset walks them too, in
 * reads that count apart from FILL_READS.
 */
export async function findWithout<T>(
  collection: { find(options: FindOptions): Promise<Page<T>> },
  options: FindOptions & { readonly limit: number },
  dropped: (items: readonly T[]) => Promise<(item: T) => boolean>,
): Promise<Page<T>> {
  const { cursor, skip, ...query } = options;
  let position: Pick<FindOptions, 'cursor'> = cursor !== undefined ? { cursor } : {};
  let toSkip = cursor !== undefined ? 0 : (skip ?? 0);
  const items: T[] = [];
  let nextCursor: string | null = null;
  for (let fills = 0; fills < FILL_READS; ) {
    if (toSkip === 0) fills++;
    const page = await collection.find({ ...query, ...position, limit: Math.min(toSkip + options.limit - items.length, Math.max(SKIP_READ, options.limit)) });
    const drop = await dropped(page.items);
    const shown = page.items.filter((item) => !drop(item));
    const skipped = Math.min(toSkip, shown.length);
    toSkip -= skipped;
    items.push(...shown.slice(skipped));
    nextCursor = page.nextCursor;
    if (nextCursor === null || items.length >= options.limit) break;
    position = { cursor: nextCursor };
  }
  return { items, nextCursor };
}
