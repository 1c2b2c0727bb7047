import { useState, type FormEvent } from 'react';
import type { ReplyOf } from '@lore/client';
import { useLore } from '../../app/lore-context';
import { ErrorBanner } from '../../ui/ErrorBanner';
import { TextField } from '../../ui/fields';
import { useAction } from '../../ui/action';
import { actingFor } from './memory-api';

const score = (value: number | undefined) => (value === undefined ? '–' : value.toFixed(3));

/** Hybrid search over the chosen user's memories, each hit with its fused score and sub-scores. */
export function MemorySearch({ userId, onShowHistory }: { userId: string; onShowHistory: (memoryId: string) => void }) {
  const { lore } = useLore();
  const [text, setText] = useState('');
  const [answer, setAnswer] = useState<ReplyOf<'search_memories'> | undefined>();
  const request = useAction();
  const search = (event: FormEvent) => {
    event.preventDefault();
    void request.run(async () => setAnswer(await lore.memories.search({ ...actingFor(userId), query: text, limit: 10 })));
  };

  return (
    <section aria-labelledby="memory-search-title">
      <h2 id="memory-search-title">Search memories</h2>
      <form className="row" onSubmit={search}>
        <TextField label="Search query" name="query" type="search" value={text} onChange={setText} required maxLength={10000} />
        <button type="submit" disabled={request.busy}>Search</button>
      </form>
      <ErrorBanner error={request.error} />
      {answer === undefined ? null : (
        <>
          <p role="status">
            {answer.total_results} found in {answer.execution_time_ms.toFixed(0)} ms
          </p>
          <ol>
            {answer.results.map((hit) => (
              <li key={hit.memory_id}>
                <p>{hit.memory}</p>
                <p className="muted small">
                  score {score(hit.score)} · vector {score(hit.scores.vector?.score)} · keyword {score(hit.scores.keyword?.score)}{' '}
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
