import { useEffect, useState, type FormEvent } from 'react';
import { useLore } from '../../app/lore-context';
import { ErrorBanner } from '../../ui/ErrorBanner';
import { CheckboxField, TextField } from '../../ui/fields';
import { appendToTail, eventSubject, filterList, type TailLine } from './tail-buffer';

const PAGE_SIZE = 20;
type Filters = { readonly contexts: string[]; readonly types: string[]; readonly after?: string };

/**
 * The workspace's integration events as they happen (`GET /api/v1/events`, SSE), filtered by
 * context or type. The SDK's stream reconnects after a drop with `Last-Event-ID`, so the tail
 * misses nothing while it runs; a gap (events expired meanwhile) is shown as a line.
 */
export function LiveTail() {
  const { lore } = useLore();
  const [contexts, setContexts] = useState('');
  const [types, setTypes] = useState('');
  const [fromOldest, setFromOldest] = useState(false);
  const [running, setRunning] = useState<Filters | undefined>();
  const [lines, setLines] = useState<TailLine[]>([]);
  const [shownCount, setShownCount] = useState(PAGE_SIZE);
  const [error, setError] = useState<unknown>(null);

  useEffect(() => {
    if (running === undefined) return undefined;
    const controller = new AbortController();
    void (async () => {
      try {
        for await (const item of lore.events.stream({ ...running, signal: controller.signal })) setLines((current) => appendToTail(current, item, new Date()));
      } catch (failure) {
        if (controller.signal.aborted) return;
        setError(failure);
        setRunning(undefined);
      }
    })();
    return () => controller.abort();
  }, [lore, running]);

  const toggle = (event: FormEvent) => {
    event.preventDefault();
    if (running !== undefined) return setRunning(undefined);
    setError(null);
    setLines([]);
    setShownCount(PAGE_SIZE);
    // `after: "0"`: from the oldest event the feed keeps; otherwise new events only.
    setRunning({ contexts: filterList(contexts), types: filterList(types), ...(fromOldest ? { after: '0' } : {}) });
  };

  return (
    <section aria-labelledby="tail-title">
      <h2 id="tail-title">Live event stream</h2>
      <form className="row" onSubmit={toggle}>
        <TextField label="Contexts" name="contexts" value={contexts} onChange={setContexts} placeholder="memory, conversation" disabled={running !== undefined} hint="Comma-separated; empty: all" />
        <TextField label="Event types" name="types" value={types} onChange={setTypes} placeholder="memory.created" disabled={running !== undefined} hint="Comma-separated; empty: all" />
        <CheckboxField label="From the oldest kept event" name="from_oldest" checked={fromOldest} onChange={setFromOldest} />
        <button type="submit" className={running ? undefined : 'primary'}>{running ? 'Stop tail' : 'Start tail'}</button>
      </form>
      <ErrorBanner error={error} />
      <p role="status" className="muted">
        {running ? `Listening… ${lines.length} received` : lines.length > 0 ? `Stopped · ${lines.length} received` : 'Not listening'}
      </p>
      <ol className="plain-list" aria-label="Events, newest first">
        {lines.slice(0, shownCount).map((line) =>
          line.kind === 'event' ? (
            <li key={line.id} data-testid="tail-event">
              <code className="small">{new Date(line.event.occurred_at).toLocaleTimeString()}</code> <strong>{line.event.type}</strong>{' '}
              <span className="muted small">{eventSubject(line.event as Record<string, unknown>)}</span>
            </li>
          ) : (
            <li key={`gap-${line.after}-${line.receivedAt}`} className="banner info">{line.message}</li>
          ),
        )}
      </ol>
      {shownCount < lines.length ? <button type="button" onClick={() => setShownCount((count) => count + PAGE_SIZE)}>Show older events</button> : null}
    </section>
  );
}
