import { useEffect, useState } from 'react';
import { Link, useSearch } from 'wouter';
import type { Connection, ConnectSession } from '@lore/client';
import { useLore } from '../../app/lore-context';
import { ErrorBanner } from '../../ui/ErrorBanner';
import { Loading } from '../../ui/states';
import { UNFINISHED } from './oauth-connect';

const POLL_MS = 1000;

/** What a session's end says, from the session (the authority) and the redirect's `error` (the only place `session_already_used` is). */
function Outcome({ session, connection, redirectError }: { session: ConnectSession; connection: Connection | undefined; redirectError: string | null }) {
  if (redirectError === 'session_already_used') {
    return <p data-testid="connect-outcome">This connect link was already used; nothing was changed. The session is {session.status}.</p>;
  }
  if (session.status === 'completed' && connection !== undefined) {
    const working = connection.status === 'active';
    return (
      <>
        <p data-testid="connect-outcome">
          <strong>{working ? 'Connected' : 'Connected, but its test failed'}:</strong> “{connection.label}” ({connection.integration}) is{' '}
          <span className={`status ${working ? 'completed' : 'failed'}`}>{connection.status}</span>
          {connection.status_reason ? <span> · {connection.status_reason}</span> : null}
        </p>
        <p>
          <Link href="/">Back to your connections</Link>
        </p>
      </>
    );
  }
  if (session.status === 'failed' && session.error !== null) {
    return (
      <p data-testid="connect-outcome">
        <strong>Not connected</strong> ({session.error.code}): {session.error.message}
      </p>
    );
  }
  if (session.status === 'expired') return <p data-testid="connect-outcome"><strong>Not connected:</strong> the session expired before {session.integration} answered. Start again from the catalog.</p>;
  return <Loading what={`the answer of ${session.integration}`} />;
}

/**
 * The page a connect session sends the browser back to (`…/connections/connect-result?status&session_id…`):
 * the outcome as the session records it, polled while the callback is still exchanging the code.
 */
export function ConnectResult() {
  const { lore } = useLore();
  const query = new URLSearchParams(useSearch());
  const sessionId = query.get('session_id');
  const redirectError = query.get('error');
  const [session, setSession] = useState<ConnectSession | undefined>();
  const [connection, setConnection] = useState<Connection | undefined>();
  const [error, setError] = useState<unknown>(null);

  useEffect(() => {
    if (sessionId === null) return;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const look = async () => {
      try {
        const now = await lore.connectSessions.get(sessionId);
        if (stopped) return;
        setSession(now);
        if (UNFINISHED.has(now.status)) timer = setTimeout(() => void look(), POLL_MS);
        else if (now.connection_id !== null && now.status === 'completed') {
          const made = await lore.connections.get(now.connection_id);
          if (!stopped) setConnection(made);
        }
      } catch (failure) {
        if (!stopped) setError(failure);
      }
    };
    void look();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [lore, sessionId]);

  return (
    <section className="card stack" aria-labelledby="connect-result-title" aria-live="polite">
      <h2 id="connect-result-title">Connect result</h2>
      {sessionId === null ? <p>This address names no connect session: start from the catalog below.</p> : null}
      <ErrorBanner error={error} />
      {session === undefined ? (sessionId !== null && error === null ? <Loading what="the connect session" /> : null) : <Outcome session={session} connection={connection} redirectError={redirectError} />}
    </section>
  );
}
