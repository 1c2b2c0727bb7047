import { useEffect, useState, type FormEvent } from 'react';
import type { Collection } from '@lore/client';
import { useLore } from '../../app/lore-context';
import { ErrorBanner } from '../../ui/ErrorBanner';
import { fieldErrors } from '../../ui/errors';
import { SelectField, TextField } from '../../ui/fields';
import { Loading } from '../../ui/states';
import { buildFilters, type FilterRow } from './filters';
import { FilterBuilder } from './FilterBuilder';
import { DEFAULT_FUSIONS, type Fusion } from './fusion';
import { FusionControls } from './FusionControls';
import { SearchColumn, type ColumnResult } from './SearchColumn';
import './search.css';

const TYPES = [
  { type: 'vector', title: 'Vector' },
  { type: 'keyword', title: 'Keyword' },
  { type: 'hybrid', title: 'Hybrid' },
] as const;
type SearchType = (typeof TYPES)[number]['type'];
/** The collections offered in the picker (the first page, newest first). */
const COLLECTIONS_SHOWN = 100;

/**
 * The search playground: one query against a collection as vector, keyword and hybrid search
 * side by side, with the hybrid fusion and filters as controls; each hit shows its sub-scores
 * and ranks, each column the API's and the browser's time.
 */
export default function SearchScreen() {
  const { lore } = useLore();
  const [collections, setCollections] = useState<readonly Collection[] | null>(null);
  const [collectionsError, setCollectionsError] = useState<unknown>(null);
  const [collectionId, setCollectionId] = useState('');
  const [query, setQuery] = useState('');
  const [maxResults, setMaxResults] = useState('10');
  const [fusion, setFusion] = useState<Fusion>(DEFAULT_FUSIONS.weighted_score);
  const [rows, setRows] = useState<readonly FilterRow[]>([]);
  const [results, setResults] = useState<Partial<Record<SearchType, ColumnResult>>>({});
  const [running, setRunning] = useState(false);

  useEffect(() => {
    lore.collections.list({ limit: COLLECTIONS_SHOWN }).then(
      (page) => {
        setCollections(page.data);
        setCollectionId((current) => current || (page.data[0]?.id ?? ''));
      },
      (error: unknown) => setCollectionsError(error),
    );
  }, [lore]);

  const run = async (event: FormEvent) => {
    event.preventDefault();
    setRunning(true);
    const filters = buildFilters(rows);
    const base = { collection_id: collectionId, query, max_results: Number(maxResults), ...(filters === null ? {} : { filters }) };
    const answers = await Promise.all(
      TYPES.map(async ({ type }): Promise<[SearchType, ColumnResult]> => {
        const started = performance.now();
        try {
          const response = await lore.collections.search({ ...base, search_type: type, ...(type === 'hybrid' ? { fusion } : {}) });
          return [type, { response, error: null, clientMs: performance.now() - started }];
        } catch (error) {
          return [type, { response: null, error, clientMs: performance.now() - started }];
        }
      }),
    );
    setResults(Object.fromEntries(answers));
    setRunning(false);
  };

  const hybridIssues = fieldErrors(results.hybrid?.error);
  if (collections === null) return collectionsError === null ? <Loading what="collections" /> : <ErrorBanner error={collectionsError} />;
  return (
    <section aria-labelledby="search-title" className="stack">
      <div className="page-head">
        <h1 id="search-title">Search playground</h1>
      </div>
      <form className="card stack" onSubmit={(event) => void run(event)} aria-label="Search">
        <div className="row">
          <SelectField label="Collection" name="collection" value={collectionId} onChange={setCollectionId} options={collections.map((c) => ({ value: c.id, label: c.name }))} />
          <TextField label="Query" name="query" type="search" required value={query} onChange={setQuery} />
          <TextField label="Results per type" name="max_results" inputMode="numeric" value={maxResults} onChange={setMaxResults} error={hybridIssues['max_results']} />
          <button type="submit" className="primary" disabled={running || collectionId === '' || query.trim() === ''}>
            {running ? 'Searching…' : 'Search'}
          </button>
        </div>
        <FusionControls fusion={fusion} onChange={setFusion} issues={hybridIssues} />
        <FilterBuilder rows={rows} onChange={setRows} />
        {buildFilters(rows) === null ? null : <pre aria-label="Filters sent">{JSON.stringify(buildFilters(rows))}</pre>}
      </form>
      {collections.length === 0 ? <p className="banner info">No collection yet: create one under Knowledge and upload files to search them.</p> : null}
      <div className="search-columns">
        {TYPES.map(({ type, title }) => (
          <SearchColumn key={type} title={title} result={results[type]} loading={running} />
        ))}
      </div>
    </section>
  );
}
