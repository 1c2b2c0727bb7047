import { useState, type FormEvent } from 'react';
import type { Chunk } from '@lore/client';
import { useLore } from '../../app/lore-context';
import { useAction } from '../../ui/action';
import { ErrorBanner } from '../../ui/ErrorBanner';
import { fieldErrors } from '../../ui/errors';
import { TextAreaField } from '../../ui/fields';

/** Metadata typed as JSON: an object, or the reason it is not one. */
function parseMetadata(text: string): { value: Record<string, unknown> } | { error: string } {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return { error: 'Metadata must be a JSON object' };
    return { value: value as Record<string, unknown> };
  } catch (error) {
    return { error: `Not JSON: ${error instanceof Error ? error.message : String(error)}` };
  }
}

/**
 * One chunk: its text and metadata, edited in place. A new text is embedded again before the
 * API answers (searches find the new text at once); metadata alone is replaced without it.
 */
export function ChunkCard({ chunk, onSaved }: { chunk: Chunk; onSaved: (chunk: Chunk) => void }) {
  const { lore } = useLore();
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState(chunk.content);
  const [metadata, setMetadata] = useState(JSON.stringify(chunk.metadata, null, 2));
  const [metadataError, setMetadataError] = useState<string | undefined>(undefined);
  const { busy, error, run } = useAction();
  const issues = fieldErrors(error);

  const save = async (event: FormEvent) => {
    event.preventDefault();
    const parsed = parseMetadata(metadata);
    if ('error' in parsed) {
      setMetadataError(parsed.error);
      return;
    }
    setMetadataError(undefined);
    await run(async () => {
      const body = { ...(text === chunk.content ? {} : { content: text }), metadata: parsed.value };
      onSaved(await lore.chunks.update(chunk.id, body));
      setEditing(false);
    });
  };

  return (
    <article className="card stack" aria-label={`Chunk ${chunk.chunk_index}`}>
      <div className="page-head">
        <h3>Chunk {chunk.chunk_index}</h3>
        <span className="small muted">
          {chunk.size_bytes} bytes · updated {new Date(chunk.updated_at).toLocaleString()}
        </span>
      </div>
      {editing ? (
        <form className="stack" onSubmit={(event) => void save(event)}>
          <ErrorBanner error={error} />
          <TextAreaField label="Text" name="content" rows={6} value={text} onChange={setText} error={issues['content']} hint="A new text is embedded again when saved." />
          <TextAreaField label="Metadata (JSON)" name="metadata" rows={4} value={metadata} onChange={setMetadata} error={metadataError ?? issues['metadata']} />
          <div className="actions">
            <button type="submit" className="primary" disabled={busy}>
              {busy ? 'Saving and embedding…' : 'Save chunk'}
            </button>
            <button type="button" onClick={() => setEditing(false)} disabled={busy}>
              Cancel
            </button>
          </div>
        </form>
      ) : (
        <>
          <pre>{chunk.content}</pre>
          {Object.keys(chunk.metadata).length === 0 ? null : <pre aria-label="Metadata">{JSON.stringify(chunk.metadata, null, 2)}</pre>}
          <div>
            <button
              type="button"
              onClick={() => {
                setText(chunk.content);
                setMetadata(JSON.stringify(chunk.metadata, null, 2));
                setEditing(true);
              }}
            >
              Edit chunk {chunk.chunk_index}
            </button>
          </div>
        </>
      )}
    </article>
  );
}
