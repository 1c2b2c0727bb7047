import { useEffect, useRef, useState } from 'react';

export interface Answer<T> {
  readonly value: T | undefined;
  readonly error: unknown;
  readonly loading: boolean;
}

/**
 * One read (a memory's history, a conversation's export) done when `key` changes; an answer
 * for an older key is dropped, so a slow reply never replaces a newer one.
 */
export function useAnswer<T>(load: () => Promise<T>, key: string): Answer<T> {
  const [answer, setAnswer] = useState<Answer<T>>({ value: undefined, error: null, loading: true });
  const loader = useRef(load);
  loader.current = load;
  useEffect(() => {
    let current = true;
    setAnswer({ value: undefined, error: null, loading: true });
    loader.current().then(
      (value) => current && setAnswer({ value, error: null, loading: false }),
      (error: unknown) => current && setAnswer({ value: undefined, error, loading: false }),
    );
    return () => {
      current = false;
    };
  }, [key]);
  return answer;
}
