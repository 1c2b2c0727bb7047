import { useCallback, useEffect, useRef, useState } from 'react';

/** One thing read from the API (a collection, a content): its value, the API's error, and a reload. */
export function useResource<T>(read: () => Promise<T>, key: string): { value: T | null; error: unknown; reload: () => void; set: (value: T) => void } {
  const [value, setValue] = useState<T | null>(null);
  const [error, setError] = useState<unknown>(null);
  const reader = useRef(read);
  reader.current = read;
  const reload = useCallback(() => {
    reader.current().then(
      (next) => {
        setValue(next);
        setError(null);
      },
      (failure: unknown) => setError(failure),
    );
  }, []);
  useEffect(() => {
    setValue(null);
    reload();
  }, [key, reload]);
  return { value, error, reload, set: setValue };
}
