import { useEffect, useState } from 'react';
import type { ReplyOf } from '@lore/client';
import { ErrorBanner, useLore } from '../../ui';
import { actingFor } from './memory-api';

type History = ReplyOf<'get_memory_history'>;

/** Every version of one memory, oldest first: what it said, when and how it changed. */
export function MemoryHistory({ memoryId, userId, onClose }: { memoryId: string; userId: string; onClose: () => void }) {
  const lore = useLore();
  const [history, setHistory] = useState<History | undefined>();
  const [error, setError] = useState<unknown>();
  useEffect(() => {
    let current = true;
    setHistory(undefined);
    lore.memories.history(memoryId, actingFor(userId)).then(
      (answer) => current && (setHistory(answer), setError(undefined)),
      (failure: unknown) => current && setError(failure),
    );
    return () => {
      current = false;
    };
  }, [lore, memoryId, userId]);

  return (
    <section aria-labelledby="memory-history-title" className="panel">
      <header className="panel-header">
        <h2 id="memory-history-title">History</h2>
        <button type="button" onClick={onClose}>Close history</button>
      </header>
      <ErrorBanner error={error} />
      {history === undefined && error === undefined && <p role="status">Loading…</p>}
      <ol className="versions">
        {history?.versions.map((version) => (
          <li key={version.version}>
            <p>
              <strong>Version {version.version}</strong> · {version.event} · <time dateTime={version.recorded_at}>{new Date(version.recorded_at).toLocaleString()}</time>
            </p>
            <p>{version.memory}</p>
            {version.topics.length > 0 && <p className="muted">Topics: {version.topics.join(', ')}</p>}
          </li>
        ))}
      </ol>
    </section>
  );
}
