import { useEffect, useRef, type ReactNode } from 'react';
import { CopyButton } from '../../ui/CopyButton';

/**
 * A secret the API returns in its creation answer only (an API key, a webhook's signing
 * secret), with a copy button. The console keeps it nowhere else: once dismissed it is gone.
 */
export function ShownOnce({ title, value, copyLabel, children, onDone }: { title: string; value: string; copyLabel: string; children: ReactNode; onDone: () => void }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  return (
    <section className="card banner info" aria-labelledby="shown-once-title">
      <h2 id="shown-once-title" tabIndex={-1} ref={heading}>{title}</h2>
      {children}
      <p className="row">
        <code data-testid="shown-once-secret">{value}</code>
        <CopyButton value={value} label={copyLabel} />
      </p>
      <button type="button" onClick={onDone}>Done, hide it</button>
    </section>
  );
}
