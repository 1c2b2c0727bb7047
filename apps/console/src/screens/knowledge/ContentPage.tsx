import { Link, useParams } from 'wouter';
import type { Chunk } from '@lore/client';
import { useLore } from '../../app/lore-context';
import { ErrorBanner } from '../../ui/ErrorBanner';
import { cursorPage, usePaged } from '../../ui/paging';
import { Empty, Loading } from '../../ui/states';
import { ChunkCard } from './ChunkCard';
import { ContentStatus } from './ContentsTable';
import { formatBytes, formatTime } from './format';
import { useResource } from './use-resource';

const PAGE_SIZE = 20;

/** One content: its facts and metadata, and its chunks in order (cursor-paged), each editable. */
export function ContentPage() {
  const { collectionId = '', contentId = '' } = useParams<{ collectionId: string; contentId: string }>();
  const { lore } = useLore();
  const content = useResource(() => lore.contents.get(contentId), contentId);
  const chunks = usePaged<Chunk>(async (cursor) => {
    const page = await lore.chunks.list({ content_id: contentId, limit: PAGE_SIZE, ...(cursor === null ? {} : { cursor }) });
    return cursorPage(page.chunks, page.next_cursor, page.has_more);
  }, contentId);

  if (content.value === null) return content.error === null ? <Loading what="content" /> : <ErrorBanner error={content.error} />;
  const current = content.value;
  return (
    <section aria-labelledby="content-title" className="stack">
      <p>
        <Link href={`/${collectionId}`}>← Collection</Link>
      </p>
      <div className="page-head">
        <h1 id="content-title">{current.name}</h1>
        <ContentStatus content={current} />
      </div>
      <div className="card">
        <dl className="facts">
          <dt>Type</dt>
          <dd>{current.mime_type}</dd>
          <dt>Text size</dt>
          <dd>{formatBytes(current.size)}</dd>
          <dt>Chunks</dt>
          <dd>{current.chunk_count}</dd>
          <dt>Attempts</dt>
          <dd>{current.attempts}</dd>
          <dt>Original</dt>
          <dd>{current.original === null ? 'not kept' : `${current.original.file_name} (${formatBytes(current.original.size)})`}</dd>
          <dt>Processed</dt>
          <dd>{current.processed_at === null ? '—' : formatTime(current.processed_at)}</dd>
          <dt>Metadata</dt>
          <dd>
            <code>{JSON.stringify(current.metadata)}</code>
          </dd>
        </dl>
      </div>
      <h2>Chunks</h2>
      <ErrorBanner error={chunks.error} />
      {chunks.items.length === 0 && !chunks.loading && chunks.error === null ? <Empty>No chunk: the content has not been processed yet, or its text was empty.</Empty> : null}
      {chunks.items.map((chunk) => (
        <ChunkCard key={chunk.id} chunk={chunk} onSaved={(saved) => chunks.update((items) => items.map((c) => (c.id === saved.id ? saved : c)))} />
      ))}
      {chunks.loading ? <Loading what="chunks" /> : null}
      {chunks.hasMore && !chunks.loading ? (
        <button type="button" onClick={chunks.loadMore}>
          Load more chunks
        </button>
      ) : null}
    </section>
  );
}
