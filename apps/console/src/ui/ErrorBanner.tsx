import { LoreApiError } from '@lore/client';
import { errorMessage } from './errors';

/** An alert with the API's message (and the request id to quote), or nothing when there is no error. */
export function ErrorBanner({ error, onDismiss }: { error: unknown; onDismiss?: () => void }) {
  if (error === null || error === undefined) return null;
  const requestId = error instanceof LoreApiError ? error.requestId : undefined;
  return (
    <div role="alert" className="banner error">
      <p>
        {error instanceof LoreApiError ? <strong>HTTP {error.status}: </strong> : null}
        {errorMessage(error)}
      </p>
      {requestId === undefined ? null : <p className="muted small">Request id {requestId}</p>}
      {onDismiss === undefined ? null : (
        <button type="button" onClick={onDismiss}>
          Dismiss
        </button>
      )}
    </div>
  );
}
