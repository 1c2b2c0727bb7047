import type { ReactNode } from 'react';

/** A polite live region saying what is loading. */
export function Loading({ what }: { what: string }) {
  return (
    <p role="status" className="muted">
      Loading {what}…
    </p>
  );
}

/** What an empty list shows: what is missing, and what to do about it. */
export function Empty({ children }: { children: ReactNode }) {
  return <div className="empty muted">{children}</div>;
}
