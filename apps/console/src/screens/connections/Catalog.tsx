import { useEffect, useMemo, useState } from 'react';
import type { Integration } from '@lore/client';
import { useLore } from '../../app/lore-context';
import { ErrorBanner } from '../../ui/ErrorBanner';
import { SelectField, TextField } from '../../ui/fields';
import { Loading } from '../../ui/states';
import { useAnswer } from '../shared/use-answer';

const PAGE_SIZE = 12;

/** The integration catalog (one answer, unpaged by the API) browsed by category or name, a dozen entries at a time. */
export function Catalog({ onConnect }: { onConnect: (entry: Integration) => void }) {
  const { lore } = useLore();
  const catalog = useAnswer(() => lore.integrations.list(), 'catalog');
  const [category, setCategory] = useState('');
  const [name, setName] = useState('');
  const [shownCount, setShownCount] = useState(PAGE_SIZE);
  // Another filter starts again from the first dozen.
  useEffect(() => setShownCount(PAGE_SIZE), [category, name]);
  const entries = catalog.value ?? [];
  const categories = useMemo(() => [...new Set(entries.flatMap((entry) => entry.categories))].sort(), [entries]);
  const needle = name.trim().toLowerCase();
  const matching = entries.filter((entry) => (category === '' || entry.categories.includes(category)) && (needle === '' || `${entry.name} ${entry.tags.join(' ')}`.toLowerCase().includes(needle)));

  return (
    <section aria-labelledby="catalog-title">
      <h2 id="catalog-title">Catalog</h2>
      <ErrorBanner error={catalog.error} />
      <div className="row">
        <SelectField
          label="Category"
          name="category"
          value={category}
          onChange={setCategory}
          options={[{ value: '', label: `all (${entries.length})` }, ...categories.map((value) => ({ value, label: value }))]}
        />
        <TextField
          label="Name or tag"
          name="catalog_search"
          type="search"
          value={name}
          onChange={setName}
        />
      </div>
      {catalog.loading ? <Loading what="the catalog" /> : null}
      <ul className="grid-2 plain-list">
        {matching.slice(0, shownCount).map((entry) => (
          <li key={entry.id} className="card">
            <h3>{entry.name}</h3>
            <p className="muted small">
              {entry.categories.join(', ')} · {entry.status}
            </p>
            <p>{entry.description}</p>
            <button type="button" onClick={() => onConnect(entry)} aria-label={`Connect ${entry.name}`}>Connect</button>
          </li>
        ))}
      </ul>
      {shownCount < matching.length ? (
        <button type="button" onClick={() => setShownCount((count) => count + PAGE_SIZE)}>Load more integrations</button>
      ) : null}
    </section>
  );
}
