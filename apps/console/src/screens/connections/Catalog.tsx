import { useEffect, useMemo, useState } from 'react';
import type { Integration } from '@lore/client';
import { ErrorBanner, useLore } from '../../ui';
import { Pager } from '../shared/Pager';
import { arrayPages } from '../shared/use-pages';

const PAGE_SIZE = 12;

/** The integration catalog (one answer, unpaged by the API) browsed by category, paged in the browser. */
export function Catalog({ onConnect }: { onConnect: (entry: Integration) => void }) {
  const lore = useLore();
  const [entries, setEntries] = useState<Integration[] | undefined>();
  const [error, setError] = useState<unknown>();
  const [category, setCategory] = useState('');
  useEffect(() => {
    lore.integrations.list().then(setEntries, setError);
  }, [lore]);

  const categories = useMemo(() => [...new Set((entries ?? []).flatMap((entry) => entry.categories))].sort(), [entries]);
  const shown = useMemo(() => (entries ?? []).filter((entry) => category === '' || entry.categories.includes(category)), [entries, category]);
  const [pageIndex, setPageIndex] = useState(0);
  const pages = arrayPages(shown, pageIndex, PAGE_SIZE, setPageIndex);

  return (
    <section aria-labelledby="catalog-title" className="panel">
      <h2 id="catalog-title">Catalog</h2>
      <ErrorBanner error={error} />
      <label className="inline-filter">
        Category
        <select name="category" value={category} onChange={(e) => { setCategory(e.target.value); setPageIndex(0); }}>
          <option value="">all ({entries?.length ?? 0})</option>
          {categories.map((name) => (
            <option key={name} value={name}>{name}</option>
          ))}
        </select>
      </label>
      <ul className="cards" aria-busy={entries === undefined}>
        {pages.items.map((entry) => (
          <li key={entry.id} className="card">
            <h3>{entry.name}</h3>
            <p className="muted">
              {entry.categories.join(', ')} · {entry.status}
            </p>
            <p>{entry.description}</p>
            <button type="button" onClick={() => onConnect(entry)} aria-label={`Connect ${entry.name}`}>
              Connect
            </button>
          </li>
        ))}
      </ul>
      <Pager pages={pages} label="Catalog" />
    </section>
  );
}
