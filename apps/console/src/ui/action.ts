import { useCallback, useState } from 'react';

/**
 * A user action that calls the API (a form's submit, a row's button): whether it is running,
 * and the failure to show (the API's error), cleared when it starts again.
 */
export function useAction(): { busy: boolean; error: unknown; clearError: () => void; run: (work: () => Promise<void>) => Promise<void> } {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const run = useCallback(async (work: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await work();
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, clearError: useCallback(() => setError(null), []), run };
}
