import { useState } from 'react';
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
  const [query, setQuery] = useState<MemoryQuery>({ userId: '' });
  const [historyOf, setHistoryOf] = useState<string | undefined>();
  return (
    <section aria-labelledby="memories-title">
      <h1 id="memories-title">Memories</h1>
      <MemoryFilters
        value={query}
        onChange={(next) => {
          setQuery(next);
          setHistoryOf(undefined);
        }}
      />
      <MemoryList query={query} onShowHistory={setHistoryOf} />
      {historyOf === undefined ? null : <MemoryHistory memoryId={historyOf} userId={query.userId} onClose={() => setHistoryOf(undefined)} />}
      <MemorySearch userId={query.userId} onShowHistory={setHistoryOf} />
    </section>
  );
}
