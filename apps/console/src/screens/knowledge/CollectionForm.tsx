import { useState, type FormEvent } from 'react';
import type { Collection } from '@lore/client';
import { useLore } from '../../app/lore-context';
import { useAction } from '../../ui/action';
import { ErrorBanner } from '../../ui/ErrorBanner';
import { fieldErrors } from '../../ui/errors';
import { SelectField, TextField } from '../../ui/fields';

const DEFAULT_MODEL = 'Xenova/all-MiniLM-L6-v2';
const PROVIDERS = [
  { value: 'local', label: 'local (in-process ONNX)' },
  { value: 'openai-compatible', label: 'openai-compatible (when configured)' },
] as const;

/** Numbers typed as text: empty means "leave it to the API's default". */
function optionalNumber(text: string): number | undefined {
  return text.trim() === '' ? undefined : Number(text);
}

/**
 * Creates a collection, or edits one (`existing`): name, description, tags, chunking and the
 * embedding model. Changing the model of a collection re-indexes it in the background (the
 * record shows it as `pending_embedding` meanwhile). The API's refusals show under each field.
 */
export function CollectionForm({ existing, onSaved, onCancel }: { existing?: Collection; onSaved: (collection: Collection) => void; onCancel: () => void }) {
  const { lore } = useLore();
  const [name, setName] = useState(existing?.name ?? '');
  const [description, setDescription] = useState(existing?.description ?? '');
  const [tags, setTags] = useState(existing?.tags.join(', ') ?? '');
  const [chunkSize, setChunkSize] = useState(existing === undefined ? '' : String(existing.settings.chunk_size));
  const [chunkOverlap, setChunkOverlap] = useState(existing === undefined ? '' : String(existing.settings.chunk_overlap));
  const [provider, setProvider] = useState<string>(existing?.embedding.provider ?? 'local');
  const [model, setModel] = useState(existing?.embedding.model ?? DEFAULT_MODEL);
  const { busy, error, run } = useAction();
  const issues = fieldErrors(error);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const size = optionalNumber(chunkSize);
    const overlap = optionalNumber(chunkOverlap);
    const body = {
      name: name.trim(),
      description: description.trim() === '' ? null : description.trim(),
      tags: tags.split(',').map((tag) => tag.trim()).filter((tag) => tag !== ''),
      settings: { ...(size === undefined ? {} : { chunk_size: size }), ...(overlap === undefined ? {} : { chunk_overlap: overlap }) },
      ...(existing !== undefined && existing.embedding.provider === provider && existing.embedding.model === model ? {} : { embedding: { provider, model } }),
    };
    await run(async () => onSaved(existing === undefined ? await lore.collections.create(body) : await lore.collections.update(existing.id, body)));
  };

  return (
    <form className="card stack" onSubmit={(event) => void submit(event)} aria-label={existing === undefined ? 'New collection' : 'Collection settings'}>
      <ErrorBanner error={error} />
      <div className="grid-2">
        <TextField label="Name" name="name" required value={name} onChange={setName} error={issues['name']} />
        <TextField label="Tags" name="tags" hint="Comma-separated" value={tags} onChange={setTags} error={issues['tags']} />
      </div>
      <TextField label="Description" name="description" value={description} onChange={setDescription} error={issues['description']} />
      <div className="grid-2">
        <TextField label="Chunk size (tokens)" name="chunk_size" inputMode="numeric" hint="Empty: the model's maximum" value={chunkSize} onChange={setChunkSize} error={issues['chunk_size']} />
        <TextField label="Chunk overlap (tokens)" name="chunk_overlap" inputMode="numeric" hint="Less than half the chunk size" value={chunkOverlap} onChange={setChunkOverlap} error={issues['chunk_overlap']} />
        <SelectField label="Embedding provider" name="provider" value={provider} onChange={setProvider} options={PROVIDERS} error={issues['provider']} />
        <TextField
          label="Embedding model"
          name="model"
          value={model}
          onChange={setModel}
          error={issues['model'] ?? issues['embedding']}
          hint={existing === undefined ? undefined : 'Changing it re-indexes every chunk in the background; searches use the old model until then.'}
        />
      </div>
      <div className="actions">
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Saving…' : existing === undefined ? 'Create collection' : 'Save settings'}
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
