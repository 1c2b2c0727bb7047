import type { FindOptions, Page } from './documents.port';

/** Reads a page makes at most to fill itself past dropped documents. */
const FILL_READS = 10;
/**
 * The deepest offset counted in documents shown: the documents before it are read, ~6.5 µs each
 * (1 KB messages), where the engine's own offset walks an index. Deeper, the engine's offset
 * stands, and counts the dropped documents before it too (while they are pending, seconds, such
 * pages may overlap by them): an offset of a million would otherwise cost every caller seconds of
 * the event loop.
 */
const SHOWN_SKIP_MAX = 1_000;

/**
 * A page of `find` without the documents `dropped` names (those being purged, say): the
 * caller's filter and position as they are, the dropped ones left out of what was read and the
 * rest read on from the page's cursor (at most FILL_READS reads: a page may come back short, its
 * cursor still right). Dropped after reading, not filtered: a filter of them would change under
 * a paging cursor (its fingerprint) as they come and go. An offset (`skip`) up to SHOWN_SKIP_MAX
 * counts the documents shown, not those dropped (a total leaves them out, so the pages would
 * overlap and end early): the documents before it are read from the start, in the first read.
 */
export async function findWithout<T>(
  collection: { find(options: FindOptions): Promise<Page<T>> },
  options: FindOptions & { readonly limit: number },
  dropped: (items: readonly T[]) => Promise<(item: T) => boolean>,
): Promise<Page<T>> {
  const { cursor, skip, ...query } = options;
  const shownSkip = cursor === undefined && (skip ?? 0) <= SHOWN_SKIP_MAX;
  let position: Pick<FindOptions, 'cursor' | 'skip'> = cursor !== undefined ? { cursor } : shownSkip ? {} : { skip: skip ?? 0 };
  let toSkip = shownSkip ? (skip ?? 0) : 0;
  const items: T[] = [];
  let nextCursor: string | null = null;
  for (let read = 0; read < FILL_READS; read++) {
    const page = await collection.find({ ...query, ...position, limit: toSkip + options.limit - items.length });
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
