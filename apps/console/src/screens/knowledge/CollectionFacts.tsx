import type { Collection } from '@lore/client';
import { formatBytes, formatTime } from './format';

/** A collection's stats and settings as a definition list. */
export function CollectionFacts({ collection }: { collection: Collection }) {
  const { stats, settings, embedding, pending_embedding: pending } = collection;
  return (
    <div className="card">
      {collection.description === null || collection.description === '' ? null : <p>{collection.description}</p>}
      <dl className="facts">
        <dt>Contents</dt>
        <dd>{stats.content_count}</dd>
        <dt>Chunks</dt>
        <dd>{stats.chunk_count}</dd>
        <dt>Text size</dt>
        <dd>{formatBytes(stats.total_bytes)}</dd>
        <dt>Embedding model</dt>
        <dd>
          {embedding.provider} · {embedding.model} ({embedding.dimensions} dimensions, {embedding.max_input_tokens} tokens)
          {pending === null ? null : <span className="status processing"> re-indexing to {pending.model}</span>}
        </dd>
        <dt>Chunking</dt>
        <dd>
          {settings.chunk_size} tokens, {settings.chunk_overlap} overlap
        </dd>
        <dt>Tags</dt>
        <dd>{collection.tags.length === 0 ? '—' : collection.tags.join(', ')}</dd>
        <dt>Created</dt>
        <dd>{formatTime(collection.created_at)}</dd>
        <dt>Id</dt>
        <dd>
          <code>{collection.id}</code>
        </dd>
      </dl>
    </div>
  );
}
