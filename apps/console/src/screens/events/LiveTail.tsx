import { useEffect, useRef, useState, type FormEvent } from 'react';
import { ErrorBanner, useLore } from '../../ui';
import { Pager } from '../shared/Pager';
import { arrayPages } from '../shared/use-pages';
import { appendToTail, eventSubject, filterList, type TailLine } from './tail-buffer';

const PAGE_SIZE = 20;

/**
 * The workspace's integration events as they happen (`GET /api/v1/events`, SSE), filtered by
 * context or type. The SDK's stream reconnects after a drop with `Last-Event-ID`, so the tail
 * misses nothing while it runs; a gap (events expired meanwhile) is shown as a line.
 */
export function LiveTail() {
  const lore = useLore();
  const [contexts, setContexts] = useState('');
  const [types, setTypes] = useState('');
  const [running, setRunning] = useState<{ contexts: string[]; types: string[] } | undefined>();
  const [lines, setLines] = useState<TailLine[]>([]);
  const [error, setError] = useState<unknown>();
  const stop = useRef<AbortController | undefined>(undefined);

  useEffect(() => {
    if (running === undefined) return undefined;
    const controller = new AbortController();
    stop.current = controller;
    void (async () => {
      try {
        for await (const item of lore.events.stream({ ...running, signal: controller.signal })) setLines((current) => appendToTail(current, item, new Date()));
      } catch (failure) {
        if (!controller.signal.aborted) {
          setError(failure);
          setRunning(undefined);
        }
      }
    })();
    return () => controller.abort();
  }, [lore, running]);

  const start = (event: FormEvent) => {
    event.preventDefault();
    setError(undefined);
    setLines([]);
    setPageIndex(0);
    setRunning(running ? undefined : { contexts: filterList(contexts), types: filterList(types) });
  };

  // Paged over the kept lines by index, so new events arriving do not throw a reader back to page 1.
  const [pageIndex, setPageIndex] = useState(0);
  const pages = arrayPages(lines, pageIndex, PAGE_SIZE, setPageIndex);

  return (
    <section aria-labelledby="tail-title" className="panel">
      <h2 id="tail-title">Live event stream</h2>
      <form className="filters" onSubmit={start}>
        <label>
          Contexts (comma-separated)
          <input name="contexts" value={contexts} onChange={(e) => setContexts(e.target.value)} placeholder="memory, conversation" disabled={running !== undefined} />
        </label>
        <label>
          Event types (comma-separated)
          <input name="types" value={types} onChange={(e) => setTypes(e.target.value)} placeholder="memory.created" disabled={running !== undefined} />
        </label>
        <button type="submit">{running ? 'Stop' : 'Start tail'}</button>
      </form>
      <ErrorBanner error={error} />
      <p role="status" className="muted">
        {running ? `Listening… ${lines.length} received` : lines.length > 0 ? `Stopped · ${lines.length} received` : 'Not listening'}
      </p>
      <ol className="tail" aria-label="Events, newest first">
        {pages.items.map((line) =>
          line.kind === 'event' ? (
            <li key={line.id} data-testid="tail-event">
              <time dateTime={line.event.occurred_at}>{new Date(line.event.occurred_at).toLocaleTimeString()}</time> <strong>{line.event.type}</strong>{' '}
              <span className="muted">{eventSubject(line.event as Record<string, unknown>)}</span>
            </li>
          ) : (
            <li key={`gap-${line.after}`} className="gap">{line.message}</li>
          ),
        )}
      </ol>
      <Pager pages={pages} label="Events" />
    </section>
  );
}
