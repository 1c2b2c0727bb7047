import { Link } from 'wouter';
import type { SearchResponse } from '@lore/client';
import { screenHref } from '../../app/routes';
import { ErrorBanner } from '../../ui/ErrorBanner';
import { Empty, Loading } from '../../ui/states';

/** What one search type answered: its response and the time the browser measured, or the API's error. */
export interface ColumnResult {
  readonly response: SearchResponse | null;
  readonly error: unknown;
  readonly clientMs: number;
}

const score = (value: number): string => value.toFixed(4);

/** One search type's hits, best first, each with its sub-scores and ranks, and the timings. */
export function SearchColumn({ title, result, loading }: { title: string; result: ColumnResult | undefined; loading: boolean }) {
  const response = result?.response ?? null;
  return (
    <section aria-label={`${title} results`} className="search-column">
      <h2>{title}</h2>
      {loading ? <Loading what={`${title} results`} /> : null}
      {result === undefined ? null : <ErrorBanner error={result.error} />}
      {response === null || result === undefined ? null : (
        <>
          <p className="small muted">
            {response.total_results} results · API {response.execution_time_ms === null ? '—' : `${response.execution_time_ms.toFixed(1)} ms`} · browser {result.clientMs.toFixed(0)} ms
          </p>
          {response.results.length === 0 ? <Empty>No hit.</Empty> : null}
          <ol className="hits">
            {response.results.map((hit) => (
              <li key={hit.chunk_id} className="card">
                <div className="page-head">
                  <Link href={screenHref(`/knowledge/${response.collection_id}/contents/${hit.content_id}`)}>{hit.content_name ?? hit.content_id}</Link>
                  <strong>{score(hit.score)}</strong>
                </div>
                <p className="small muted">
                  chunk {hit.chunk_index} · vector {hit.scores.vector === null ? '—' : `${score(hit.scores.vector.score)} (rank ${hit.scores.vector.rank ?? '—'})`} · keyword{' '}
                  {hit.scores.keyword === null ? '—' : `${score(hit.scores.keyword.score)} (rank ${hit.scores.keyword.rank ?? '—'})`}
                </p>
                <p className="snippet">{hit.content}</p>
              </li>
            ))}
          </ol>
        </>
      )}
    </section>
  );
}
