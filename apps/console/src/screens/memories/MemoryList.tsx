import { useState } from 'react';
import type { Memory } from '@lore/client';
import { useLore } from '../../app/lore-context';
import { ConfirmDialog } from '../../ui/ConfirmDialog';
import { ErrorBanner } from '../../ui/ErrorBanner';
import { PagedTable, type Column } from '../../ui/PagedTable';
import { usePaged } from '../../ui/paging';
import { actingFor, memoryPage } from './memory-api';
import type { MemoryQuery } from './MemoryFilters';

/** The memories of the chosen user, newest first; delete asks first and is permanent. */
export function MemoryList({ query, shown, onShowHistory }: { query: MemoryQuery; shown: number; onShowHistory: (memoryId: string) => void }) {
  const { lore } = useLore();
  const paged = usePaged((cursor) => memoryPage(lore, query, cursor), `${shown}/${JSON.stringify(query)}`);
  const [deleting, setDeleting] = useState<Memory | undefined>();
  const [busy, setBusy] = useState(false);
  const [deleteError, setDeleteError] = useState<unknown>(null);

  const remove = async (memory: Memory) => {
    setBusy(true);
    try {
      await lore.memories.delete(memory.memory_id, actingFor(query.userId));
      paged.update((items) => items.filter((item) => item.memory_id !== memory.memory_id));
      setDeleteError(null);
    } catch (error) {
      setDeleteError(error);
    } finally {
      setBusy(false);
      setDeleting(undefined);
    }
  };

  const columns: readonly Column<Memory>[] = [
    { header: 'Memory', cell: (m) => m.memory },
    { header: 'Type', cell: (m) => m.memory_type },
    { header: 'Topics', cell: (m) => m.topics.join(', ') },
    { header: 'Updated', cell: (m) => new Date(m.updated_at).toLocaleString() },
    {
      header: 'Actions',
      cell: (m) => (
        <span className="row">
          <button type="button" onClick={() => onShowHistory(m.memory_id)} aria-label={`History of “${m.memory.slice(0, 40)}”`}>History</button>
          <button type="button" className="danger" onClick={() => setDeleting(m)} aria-label={`Delete “${m.memory.slice(0, 40)}”`}>Delete</button>
        </span>
      ),
    },
  ];

  return (
    <>
      <ErrorBanner error={deleteError} onDismiss={() => setDeleteError(null)} />
      <PagedTable
        caption={query.userId === '' ? 'Your memories' : `Memories of ${query.userId}`}
        what="memories"
        columns={columns}
        paged={paged}
        rowKey={(m) => m.memory_id}
        empty="No memories match."
      />
      <ConfirmDialog open={deleting !== undefined} title="Delete this memory?" busy={busy} onConfirm={() => deleting && void remove(deleting)} onCancel={() => setDeleting(undefined)}>
        <p>“{deleting?.memory}” and every version of it are deleted permanently.</p>
      </ConfirmDialog>
    </>
  );
}
