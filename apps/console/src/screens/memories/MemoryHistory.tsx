import { useLore } from '../../app/lore-context';
import { ErrorBanner } from '../../ui/ErrorBanner';
import { Loading } from '../../ui/states';
import { useAnswer } from '../shared/use-answer';
import { actingFor } from './memory-api';

/** Every version of one memory, oldest first: what it said, when and how it changed. */
export function MemoryHistory({ memoryId, userId, onClose }: { memoryId: string; userId: string; onClose: () => void }) {
  const { lore } = useLore();
  const history = useAnswer(() => lore.memories.history(memoryId, actingFor(userId)), `${memoryId}/${userId}`);
  return (
    <section aria-labelledby="memory-history-title" className="card">
      <div className="row">
        <h2 id="memory-history-title">History of a memory</h2>
        <button type="button" onClick={onClose}>Close history</button>
      </div>
      <ErrorBanner error={history.error} />
      {history.loading ? <Loading what="versions" /> : null}
      <ol>
        {history.value?.versions.map((version) => (
          <li key={version.version}>
            <p>
              <strong>Version {version.version}</strong> · {version.event} · {new Date(version.recorded_at).toLocaleString()}
            </p>
            <p>{version.memory}</p>
            {version.topics.length > 0 ? <p className="muted small">Topics: {version.topics.join(', ')}</p> : null}
          </li>
        ))}
      </ol>
    </section>
  );
}
