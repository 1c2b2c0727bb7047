import { useState, type FormEvent } from 'react';
import type { ReplyOf } from '@lore/client';
import { ErrorBanner, useLore } from '../../ui';
import { actingFor } from './memory-api';

type SearchAnswer = ReplyOf<'search_memories'>;

/** Hybrid search over the chosen user's memories, each hit with its fused score and sub-scores. */
export function MemorySearch({ userId, onShowHistory }: { userId: string; onShowHistory: (memoryId: string) => void }) {
  const lore = useLore();
  const [text, setText] = useState('');
  const [answer, setAnswer] = useState<SearchAnswer | undefined>();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);

  const search = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    try {
      setAnswer(await lore.memories.search({ ...actingFor(userId), query: text, limit: 10 }));
      setError(undefined);
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby="memory-search-title" className="panel">
      <h2 id="memory-search-title">Search memories</h2>
      <form onSubmit={(e) => void search(e)} className="inline-form">
        <label>
          Query
          <input name="query" value={text} onChange={(e) => setText(e.target.value)} required maxLength={10000} />
        </label>
        <button type="submit" disabled={busy}>Search</button>
      </form>
      <ErrorBanner error={error} />
      {answer && (
        <>
          <p role="status">
            {answer.total_results} found in {answer.execution_time_ms.toFixed(0)} ms
          </p>
          <ol className="hits">
            {answer.results.map((hit) => (
              <li key={hit.memory_id}>
                <p>{hit.memory}</p>
                <p className="muted">
                  score {hit.score.toFixed(3)} · vector {hit.scores.vector?.score.toFixed(3) ?? '–'} · keyword {hit.scores.keyword?.score.toFixed(3) ?? '–'}{' '}
                  <button type="button" className="link" onClick={() => onShowHistory(hit.memory_id)}>History</button>
                </p>
              </li>
            ))}
          </ol>
        </>
      )}
    </section>
  );
}
