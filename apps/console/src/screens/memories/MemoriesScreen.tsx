import { useState } from 'react';
import '../shared/screens.css';
import { MemoryFilters, type MemoryQuery } from './MemoryFilters';
import { MemoryList } from './MemoryList';
import { MemorySearch } from './MemorySearch';
import { MemoryHistory } from './MemoryHistory';

/**
 * Memories of one user: the list (paged by cursor, filtered), a search over them, the
 * versions of one memory and deleting one after a confirmation. Without a user the API
 * answers the signed-in user's own (a JWT's `sub`); naming another takes an administrator.
 */
export default function MemoriesScreen() {
  // Counts submissions: showing again with the same filters reads the list again.
  const [shown, setShown] = useState(0);
  const [query, setQuery] = useState<MemoryQuery>({ userId: '' });
  const [historyOf, setHistoryOf] = useState<string | undefined>();
  return (
    <section aria-labelledby="memories-title">
      <div className="page-head">
        <h1 id="memories-title">Memories</h1>
      </div>
      <MemoryFilters
        value={query}
        onChange={(next) => {
          setQuery(next);
          setShown((n) => n + 1);
          setHistoryOf(undefined);
        }}
      />
      <div className="grid-2">
        <MemorySearch userId={query.userId} onShowHistory={setHistoryOf} />
        {historyOf === undefined ? null : <MemoryHistory memoryId={historyOf} userId={query.userId} onClose={() => setHistoryOf(undefined)} />}
      </div>
      <MemoryList query={query} shown={shown} onShowHistory={setHistoryOf} />
    </section>
  );
}
