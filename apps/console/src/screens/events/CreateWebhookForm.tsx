import { useState, type FormEvent } from 'react';
import type { ReplyOf } from '@lore/client';
import { ErrorBanner, useLore } from '../../ui';
import { FieldIssues } from '../shared/FieldIssues';
import { issuesByField } from '../shared/api-issues';
import { filterList } from './tail-buffer';

const FIELDS = ['url', 'event_types', 'description'];

/** A new webhook endpoint: where to POST and which events (types like `memory.created` or whole contexts, `memory.*`). */
export function CreateWebhookForm({ onCreated }: { onCreated: (webhook: ReplyOf<'create_webhook'>) => void }) {
  const lore = useLore();
  const [url, setUrl] = useState('');
  const [eventTypes, setEventTypes] = useState('');
  const [description, setDescription] = useState('');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    try {
      onCreated(await lore.webhooks.create({ url: url.trim(), event_types: filterList(eventTypes), description }));
      setUrl('');
      setEventTypes('');
      setDescription('');
      setError(undefined);
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };

  const issues = issuesByField(error, FIELDS);
  const described = (field: string) => (issues[field] ? { 'aria-invalid': true, 'aria-describedby': `webhook-${field}-issues` } : {});
  return (
    <form className="panel stacked-form" onSubmit={(e) => void submit(e)} aria-labelledby="create-webhook-title">
      <h2 id="create-webhook-title">Add a webhook</h2>
      {issues[''] && <ErrorBanner error={error} />}
      <label>
        Endpoint URL
        <input name="url" type="url" required maxLength={2000} value={url} onChange={(e) => setUrl(e.target.value)} {...described('url')} />
      </label>
      <FieldIssues id="webhook-url-issues" issues={issues['url']} />
      <label>
        Event types (comma-separated; empty: every event)
        <input name="event_types" value={eventTypes} onChange={(e) => setEventTypes(e.target.value)} placeholder="memory.created, conversation.*" {...described('event_types')} />
      </label>
      <FieldIssues id="webhook-event_types-issues" issues={issues['event_types']} />
      <label>
        Description
        <input name="description" maxLength={500} value={description} onChange={(e) => setDescription(e.target.value)} {...described('description')} />
      </label>
      <FieldIssues id="webhook-description-issues" issues={issues['description']} />
      <button type="submit" disabled={busy}>Add webhook</button>
    </form>
  );
}
