import { useCallback, useEffect, useRef, useState } from 'react';

/**
 * One page of any list. The API pages two ways: by cursor (`next_cursor`/`has_more`) and by
 * offset (`skip`/`has_more`); `next` is the opaque token of the following page either way.
 */
export interface Page<T> {
  readonly items: readonly T[];
  readonly next: string | null;
}

/** A cursor-paged answer as a {@link Page}. */
export function cursorPage<T>(items: readonly T[], nextCursor: string | null | undefined, hasMore: boolean | null | undefined): Page<T> {
  return { items, next: hasMore && nextCursor ? nextCursor : null };
}

/** An offset-paged answer as a {@link Page}: the next token is the offset after these items. */
export function offsetPage<T>(items: readonly T[], skip: number, hasMore: boolean | null | undefined): Page<T> {
  return { items, next: hasMore && items.length > 0 ? String(skip + items.length) : null };
}

/** The offset a page token stands for (`null`: the first page). */
export function skipOf(token: string | null): number {
  return token === null ? 0 : Number(token);
}

export interface Paged<T> {
  readonly items: readonly T[];
  readonly loading: boolean;
  readonly error: unknown;
  readonly hasMore: boolean;
  readonly loadMore: () => void;
  readonly reload: () => void;
  /** Replaces items in place (after an edit or a live status change) without refetching. */
  readonly update: (change: (items: readonly T[]) => readonly T[]) => void;
}

/**
 * A list read page by page ("Load more"). `fetchPage` is called with the previous page's token;
 * when `key` changes (filters) the list starts over, and answers for an older key are dropped.
 */
export function usePaged<T>(fetchPage: (token: string | null) => Promise<Page<T>>, key: string): Paged<T> {
  const [items, setItems] = useState<readonly T[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<unknown>(null);
  const generation = useRef(0);
  const fetcher = useRef(fetchPage);
  fetcher.current = fetchPage;

  const load = useCallback((token: string | null, append: boolean) => {
    const mine = ++generation.current;
    setLoading(true);
    setError(null);
    fetcher.current(token).then(
      (page) => {
        if (mine !== generation.current) return;
        setItems((current) => (append ? [...current, ...page.items] : page.items));
        setNext(page.next);
        setLoading(false);
      },
      (failure: unknown) => {
        if (mine !== generation.current) return;
        setError(failure);
        setLoading(false);
      },
    );
  }, []);

  useEffect(() => load(null, false), [key, load]);

  return {
    items,
    loading,
    error,
    hasMore: next !== null,
    loadMore: () => load(next, true),
    reload: () => load(null, false),
    update: (change) => setItems(change),
  };
}
