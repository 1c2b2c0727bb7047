import type { ReactNode } from 'react';
import { ErrorBanner } from './ErrorBanner';
import type { Paged } from './paging';
import { Empty, Loading } from './states';

export interface Column<T> {
  readonly header: string;
  readonly cell: (row: T) => ReactNode;
}

/** A table over a paged list: a caption, the rows, loading and empty states, the API's error, and "Load more". */
export function PagedTable<T>({ caption, columns, paged, rowKey, empty, what }: {
  caption: string;
  columns: readonly Column<T>[];
  paged: Paged<T>;
  rowKey: (row: T) => string;
  empty: ReactNode;
  /** What the rows are, for the loading message ("collections"). */
  what: string;
}) {
  return (
    <div className="paged">
      <ErrorBanner error={paged.error} />
      {paged.items.length === 0 && !paged.loading && paged.error === null ? (
        <Empty>{empty}</Empty>
      ) : (
        <div className="table-scroll">
          <table>
            <caption>{caption}</caption>
            <thead>
              <tr>
                {columns.map((column) => (
                  <th key={column.header} scope="col">
                    {column.header}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {paged.items.map((row) => (
                <tr key={rowKey(row)}>
                  {columns.map((column) => (
                    <td key={column.header} data-label={column.header}>
                      {column.cell(row)}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {paged.loading ? <Loading what={what} /> : null}
      {paged.hasMore && !paged.loading ? (
        <button type="button" onClick={paged.loadMore}>
          Load more {what}
        </button>
      ) : null}
    </div>
  );
}
