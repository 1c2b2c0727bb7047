/** One page of a list as the iterators read it. */
export interface CursorPage<T> {
  readonly items: readonly T[];
  readonly nextCursor: string | null | undefined;
  readonly hasMore: boolean | null | undefined;
}

export interface OffsetPage<T> {
  readonly items: readonly T[];
  readonly hasMore: boolean | null | undefined;
}

/** Every item of a cursor-paged list (`next_cursor` / `has_more`), fetching pages as the caller iterates. */
export async function* cursorItems<T>(fetchPage: (cursor: string | undefined) => Promise<CursorPage<T>>): AsyncGenerator<T, void, undefined> {
  let cursor: string | undefined;
  for (;;) {
    const page = await fetchPage(cursor);
    yield* page.items;
    if (!page.hasMore || !page.nextCursor) return;
    cursor = page.nextCursor;
  }
}

/**
 * Every item of an offset-paged list (`skip` / `has_more`). Items inserted meanwhile may shift
 * an offset list; lists that also take a cursor are iterated with it instead.
 */
export async function* offsetItems<T>(fetchPage: (skip: number) => Promise<OffsetPage<T>>): AsyncGenerator<T, void, undefined> {
  let skip = 0;
  for (;;) {
    const page = await fetchPage(skip);
    yield* page.items;
    if (!page.hasMore || page.items.length === 0) return;
    skip += page.items.length;
  }
}

/** Collects an async iterable into an array (for small lists and tests). */
export async function toArray<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}
