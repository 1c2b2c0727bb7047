import type { Pages } from './use-pages';

/** Previous / next under a paged list, with the page number announced to screen readers. */
export function Pager({ pages, label }: { pages: Pages<unknown>; label: string }) {
  return (
    <nav className="pager" aria-label={`${label} pages`}>
      <button type="button" onClick={pages.previous} disabled={!pages.hasPrevious || pages.loading}>
        Previous
      </button>
      <span aria-live="polite">Page {pages.number}</span>
      <button type="button" onClick={pages.next} disabled={!pages.hasNext || pages.loading}>
        Next
      </button>
    </nav>
  );
}
