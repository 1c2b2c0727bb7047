import { useState } from 'react';
import type { Memory } from '@lore/client';
import { ConfirmDialog, ErrorBanner, useLore } from '../../ui';
import { Pager } from '../shared/Pager';
import { usePages } from '../shared/use-pages';
import { actingFor, memoryPage } from './memory-api';
import type { MemoryQuery } from './MemoryFilters';

/** The memories of the chosen user, newest first, 20 a page; delete asks first and is permanent. */
export function MemoryList({ query, onShowHistory }: { query: MemoryQuery; onShowHistory: (memoryId: string) => void }) {
  const lore = useLore();
  const pages = usePages(JSON.stringify(query), (cursor) => memoryPage(lore, query, cursor));
  const [deleting, setDeleting] = useState<Memory | undefined>();
  const [deleteError, setDeleteError] = useState<unknown>();

  const remove = async (memory: Memory) => {
    try {
      await lore.memories.delete(memory.memory_id, actingFor(query.userId));
      setDeleteError(undefined);
      pages.reload();
    } catch (error) {
      setDeleteError(error);
    } finally {
      setDeleting(undefined);
    }
  };

  return (
    <div>
      <ErrorBanner error={pages.error ?? deleteError} />
      <table className="data-table" aria-busy={pages.loading}>
        <caption>Memories{query.userId === '' ? ' (yours)' : ` of ${query.userId}`}</caption>
        <thead>
          <tr>
            <th scope="col">Memory</th>
            <th scope="col">Type</th>
            <th scope="col">Topics</th>
            <th scope="col">Updated</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {pages.items.map((memory) => (
            <tr key={memory.memory_id}>
              <td>{memory.memory}</td>
              <td>{memory.memory_type}</td>
              <td>{memory.topics.join(', ')}</td>
              <td><time dateTime={memory.updated_at}>{new Date(memory.updated_at).toLocaleString()}</time></td>
              <td className="actions">
                <button type="button" onClick={() => onShowHistory(memory.memory_id)}>History</button>
                <button type="button" className="danger" onClick={() => setDeleting(memory)}>Delete</button>
              </td>
            </tr>
          ))}
          {!pages.loading && pages.items.length === 0 && (
            <tr>
              <td colSpan={5}>No memories.</td>
            </tr>
          )}
        </tbody>
      </table>
      <Pager pages={pages} label="Memories" />
      <ConfirmDialog
        open={deleting !== undefined}
        title="Delete this memory?"
        message={`“${deleting?.memory ?? ''}” and every version of it are deleted permanently.`}
        confirmLabel="Delete"
        onConfirm={() => deleting && void remove(deleting)}
        onCancel={() => setDeleting(undefined)}
      />
    </div>
  );
}
