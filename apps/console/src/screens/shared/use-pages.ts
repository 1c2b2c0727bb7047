import { useCallback, useEffect, useState } from 'react';

/** One page as a list answers it: its items and the token of the next page (none: the last page). */
export interface Page<T> {
  readonly items: readonly T[];
  readonly next: string | undefined;
}

export interface Pages<T> {
  readonly items: readonly T[];
  readonly loading: boolean;
  readonly error: unknown;
  /** 1-based number of the page shown. */
  readonly number: number;
  readonly hasNext: boolean;
  readonly hasPrevious: boolean;
  readonly next: () => void;
  readonly previous: () => void;
  /** Reads the page shown again (after a delete, a change). */
  readonly reload: () => void;
}

/**
 * Pages through a list whatever its paging (a cursor, or an offset turned into a token by the
 * caller): the tokens of the pages seen are kept, so Previous goes back without the API
 * having to page backwards. `key` names the query: when it changes, paging starts again.
 */
export function usePages<T>(key: string, fetchPage: (token: string | undefined) => Promise<Page<T>>): Pages<T> {
  const [tokens, setTokens] = useState<(string | undefined)[]>([undefined]);
  const [page, setPage] = useState<Page<T> | undefined>();
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<unknown>();
  const [generation, setGeneration] = useState(0);

  useEffect(() => setTokens([undefined]), [key]);
  const token = tokens[tokens.length - 1];
  useEffect(() => {
    let current = true;
    setLoading(true);
    fetchPage(token).then(
      (answer) => current && (setPage(answer), setError(undefined), setLoading(false)),
      (failure: unknown) => current && (setError(failure), setLoading(false)),
    );
    return () => {
      current = false;
    };
    // fetchPage changes with every render; the key and the token say what to read.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key, token, generation]);

  return {
    items: page?.items ?? [],
    loading,
    error,
    number: tokens.length,
    hasNext: page?.next !== undefined,
    hasPrevious: tokens.length > 1,
    next: useCallback(() => page?.next !== undefined && setTokens((seen) => [...seen, page.next]), [page]),
    previous: useCallback(() => setTokens((seen) => (seen.length > 1 ? seen.slice(0, -1) : seen)), []),
    reload: useCallback(() => setGeneration((n) => n + 1), []),
  };
}

/** An offset list's page as a token page: the next token is the next offset. */
export function offsetPage<T>(items: readonly T[], skip: number, hasMore: boolean | null | undefined): Page<T> {
  return { items, next: hasMore ? String(skip + items.length) : undefined };
}

/** Pages over a list held in memory (a live tail): the page index is the caller's state. */
export function arrayPages<T>(all: readonly T[], index: number, size: number, setIndex: (index: number) => void): Pages<T> {
  const last = Math.max(0, Math.ceil(all.length / size) - 1);
  const shown = Math.min(index, last);
  return {
    items: all.slice(shown * size, shown * size + size),
    loading: false,
    error: undefined,
    number: shown + 1,
    hasNext: shown < last,
    hasPrevious: shown > 0,
    next: () => setIndex(Math.min(shown + 1, last)),
    previous: () => setIndex(Math.max(shown - 1, 0)),
    reload: () => undefined,
  };
}
