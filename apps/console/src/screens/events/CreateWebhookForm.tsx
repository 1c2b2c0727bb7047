import { useState, type FormEvent } from 'react';
import type { ReplyOf } from '@lore/client';
import { useLore } from '../../app/lore-context';
import { ErrorBanner } from '../../ui/ErrorBanner';
import { TextField } from '../../ui/fields';
import { formIssues } from '../shared/api-issues';
import { useAction } from '../../ui/action';
import { filterList } from './tail-buffer';

const FIELDS = ['url', 'event_types', 'description'];

/** A new webhook endpoint: where to POST and which events (types like `memory.created` or whole contexts, `memory.*`). */
export function CreateWebhookForm({ onCreated }: { onCreated: (webhook: ReplyOf<'create_webhook'>) => void }) {
  const { lore } = useLore();
  const [url, setUrl] = useState('');
  const [eventTypes, setEventTypes] = useState('');
  const [description, setDescription] = useState('');
  const request = useAction();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void request.run(async () => {
      onCreated(await lore.webhooks.create({ url: url.trim(), event_types: filterList(eventTypes), description }));
      setUrl('');
      setEventTypes('');
      setDescription('');
    });
  };

  const { of: issue, unplaced } = formIssues(request.error, FIELDS);
  return (
    <form className="card stack" onSubmit={submit} aria-labelledby="create-webhook-title">
      <h2 id="create-webhook-title">Add a webhook</h2>
      {unplaced ? <ErrorBanner error={request.error} /> : null}
      <TextField label="Endpoint URL" name="url" type="url" required maxLength={2000} value={url} onChange={setUrl} error={issue('url')} />
      <TextField label="Event types" name="event_types" value={eventTypes} onChange={setEventTypes} placeholder="memory.created, conversation.*" error={issue('event_types')} hint="Comma-separated; empty: every event" />
      <TextField label="Description" name="description" maxLength={500} value={description} onChange={setDescription} error={issue('description')} />
      <div className="actions">
        <button type="submit" className="primary" disabled={request.busy}>Add webhook</button>
      </div>
    </form>
  );
}
