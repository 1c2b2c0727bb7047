import { useRef, useState } from 'react';
import { useLore } from '../../app/lore-context';
import { ErrorBanner } from '../../ui/ErrorBanner';
import { Progress } from '../../ui/Progress';
import { useAction } from '../../ui/action';
import { addReply, EMPTY_TOTALS, type AuditTotals } from './audit-report';

/** Streams each context checks per request: small pages keep the progress moving. */
const STREAMS_PER_REQUEST = 200;

/**
 * The audit `verify` of the workspace (administrators only): every context checks the hash
 * chains of the workspace's streams; the panel follows the API's cursor until all are
 * checked, showing how many so far, then OK or each broken stream with its revision and why.
 */
export function AuditVerifyPanel() {
  const { lore } = useLore();
  const request = useAction();
  const [totals, setTotals] = useState<AuditTotals | undefined>();
  const [checked, setChecked] = useState(0);
  const [complete, setComplete] = useState(false);
  const stop = useRef(false);

  const verify = () =>
    void request.run(async () => {
      stop.current = false;
      setTotals(undefined);
      setComplete(false);
      setChecked(0);
      let sum = EMPTY_TOTALS;
      let cursor: string | null = null;
      do {
        const reply = await lore.audit.verify({ limit: STREAMS_PER_REQUEST, ...(cursor === null ? {} : { cursor }) });
        sum = addReply(sum, reply);
        setChecked(sum.streams);
        cursor = reply.next_cursor;
      } while (cursor !== null && !stop.current);
      setTotals(sum);
      setComplete(cursor === null);
    });

  const broken = totals?.contexts.flatMap((c) => c.broken.map((b) => ({ ...b, context: c.context }))) ?? [];
  return (
    <section aria-labelledby="audit-title" className="card stack">
      <h2 id="audit-title">Audit: tamper evidence</h2>
      <p className="muted small">
        Every stored event is hash-chained to the one before it. Verify checks the chains of this workspace&apos;s streams in every context; a stream
        edited outside Lore shows as broken. Administrators only.
      </p>
      <div className="row">
        <button type="button" className="primary" disabled={request.busy} onClick={verify}>
          Verify
        </button>
        {request.busy ? (
          <button type="button" onClick={() => (stop.current = true)}>
            Stop
          </button>
        ) : null}
      </div>
      {request.busy ? <Progress label={`Verifying: ${checked} stream${checked === 1 ? '' : 's'} checked`} /> : null}
      <ErrorBanner error={request.error} onDismiss={request.clearError} />
      {totals === undefined || request.busy ? null : (
        <div className="stack" data-testid="audit-result">
          <p role="status">
            <span className={`status ${totals.ok ? 'completed' : 'failed'}`}>{totals.ok ? 'OK' : 'BROKEN'}</span>{' '}
            {totals.ok ? 'No broken stream' : `${broken.length} broken stream${broken.length === 1 ? '' : 's'}`} among {totals.streams} checked
            {complete ? '.' : ' (stopped before the end: verify again to check every stream).'}
          </p>
          <table>
            <caption>Streams verified per context</caption>
            <thead>
              <tr>
                <th scope="col">Context</th>
                <th scope="col">Streams</th>
                <th scope="col">Events</th>
                <th scope="col">Unchained events</th>
                <th scope="col">Deleted streams</th>
                <th scope="col">Broken</th>
              </tr>
            </thead>
            <tbody>
              {totals.contexts.map((c) => (
                <tr key={c.context}>
                  <th scope="row">{c.context}</th>
                  <td>{c.streams}</td>
                  <td>{c.events}</td>
                  <td>{c.unchained}</td>
                  <td>{c.deleted}</td>
                  <td>{c.broken.length}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {broken.length === 0 ? null : (
            <ul aria-label="Broken streams">
              {broken.map((b) => (
                <li key={b.stream_id}>
                  <code>{b.stream_id}</code> ({b.context}) at revision {b.first_bad_revision}: {b.reason}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
    </section>
  );
}
