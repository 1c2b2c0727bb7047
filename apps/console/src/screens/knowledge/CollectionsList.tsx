import { useState } from 'react';
import { Link } from 'wouter';
import type { Collection } from '@lore/client';
import { useLore } from '../../app/lore-context';
import { PagedTable, type Column } from '../../ui/PagedTable';
import { offsetPage, skipOf, usePaged } from '../../ui/paging';
import { TextField } from '../../ui/fields';
import { CollectionForm } from './CollectionForm';
import { formatBytes, formatTime } from './format';

const PAGE_SIZE = 25;

const COLUMNS: readonly Column<Collection>[] = [
  { header: 'Name', cell: (c) => <Link href={`/${c.id}`}>{c.name}</Link> },
  { header: 'Contents', cell: (c) => c.stats.content_count },
  { header: 'Chunks', cell: (c) => c.stats.chunk_count },
  { header: 'Size', cell: (c) => formatBytes(c.stats.total_bytes) },
  { header: 'Embedding model', cell: (c) => `${c.embedding.model} (${c.embedding.dimensions})` },
  { header: 'Updated', cell: (c) => formatTime(c.updated_at) },
];

/** The workspace's collections, searchable by name, with a form to create one. */
export function CollectionsList() {
  const { lore } = useLore();
  const [search, setSearch] = useState('');
  const [creating, setCreating] = useState(false);
  const paged = usePaged(async (token) => {
    const skip = skipOf(token);
    const page = await lore.collections.list({ skip, limit: PAGE_SIZE, ...(search.trim() === '' ? {} : { search: search.trim() }) });
    return offsetPage(page.data, skip, page.has_more);
  }, search.trim());

  return (
    <section aria-labelledby="collections-title">
      <div className="page-head">
        <h1 id="collections-title">Knowledge collections</h1>
        <button type="button" className="primary" onClick={() => setCreating(!creating)} aria-expanded={creating}>
          New collection
        </button>
      </div>
      {creating ? (
        <CollectionForm
          onSaved={() => {
            setCreating(false);
            paged.reload();
          }}
          onCancel={() => setCreating(false)}
        />
      ) : null}
      <div className="row">
        <TextField label="Filter by name or description" type="search" value={search} onChange={setSearch} />
      </div>
      <PagedTable caption="Collections" what="collections" columns={COLUMNS} paged={paged} rowKey={(c) => c.id} empty={search === '' ? 'No collection yet: create one to upload files into.' : 'No collection matches.'} />
    </section>
  );
}
