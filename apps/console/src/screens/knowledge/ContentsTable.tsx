import { useState } from 'react';
import { Link } from 'wouter';
import type { Content } from '@lore/client';
import { useLore } from '../../app/lore-context';
import { ConfirmDialog } from '../../ui/ConfirmDialog';
import { useAction } from '../../ui/action';
import { ErrorBanner } from '../../ui/ErrorBanner';
import { PagedTable, type Column } from '../../ui/PagedTable';
import type { Paged } from '../../ui/paging';
import { formatBytes, formatTime } from './format';
import { downloadOriginal } from './download';

/** A content's status as a badge, with the failure reason when it failed (or is being retried after one). */
export function ContentStatus({ content }: { content: Content }) {
  return (
    <span>
      <span className={`status ${content.status}`}>{content.status}</span>
      {content.error === null ? null : <span className="field-error"> {content.error}</span>}
    </span>
  );
}

/**
 * A collection's contents: status (live), chunks, size, and per row download of the original,
 * reprocess and delete (confirmed). The list is the parent's, so uploads and live events change it.
 */
export function ContentsTable({ paged, collectionId }: { paged: Paged<Content>; collectionId: string }) {
  const { lore } = useLore();
  const [deleting, setDeleting] = useState<Content | null>(null);
  const { busy, error, clearError, run: act } = useAction();
  const replace = (next: Content) => paged.update((items) => items.map((c) => (c.id === next.id ? next : c)));
  const columns: readonly Column<Content>[] = [
    { header: 'Name', cell: (c) => <Link href={`/${collectionId}/contents/${c.id}`}>{c.name}</Link> },
    { header: 'Status', cell: (c) => <ContentStatus content={c} /> },
    { header: 'Chunks', cell: (c) => c.chunk_count },
    { header: 'Size', cell: (c) => formatBytes(c.size) },
    { header: 'Updated', cell: (c) => formatTime(c.updated_at) },
    {
      header: 'Actions',
      cell: (c) => (
        <div className="row">
          {c.original === null ? null : (
            <button type="button" onClick={() => void act(() => downloadOriginal(lore, c))} aria-label={`Download the original of ${c.name}`}>
              Download
            </button>
          )}
          <button type="button" onClick={() => void act(async () => replace(await lore.contents.reprocess(c.id)))} aria-label={`Reprocess ${c.name}`}>
            Reprocess
          </button>
          <button type="button" className="danger" onClick={() => setDeleting(c)} aria-label={`Delete ${c.name}`}>
            Delete
          </button>
        </div>
      ),
    },
  ];

  const confirmDelete = async () => {
    if (deleting === null) return;
    await act(async () => {
      await lore.contents.delete(deleting.id);
      paged.update((items) => items.filter((c) => c.id !== deleting.id));
    });
    setDeleting(null);
  };

  return (
    <>
      <ErrorBanner error={error} onDismiss={clearError} />
      <PagedTable caption="Contents" what="contents" columns={columns} paged={paged} rowKey={(c) => c.id} empty="No content yet: upload files above." />
      <ConfirmDialog open={deleting !== null} title={`Delete ${deleting?.name ?? ''}?`} busy={busy} onConfirm={() => void confirmDelete()} onCancel={() => setDeleting(null)}>
        <p>Its text, chunks and vectors are erased for good; searches stop finding it at once.</p>
      </ConfirmDialog>
    </>
  );
}
