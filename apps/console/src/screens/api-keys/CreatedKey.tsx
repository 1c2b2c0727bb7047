import { useEffect, useRef } from 'react';
import type { ReplyOf } from '@lore/client';
import { CopyButton } from '../../ui';

/**
 * The new key's bearer token, shown this once: the API never returns the secret again, and
 * the console keeps it only in this component's props until "Done".
 */
export function CreatedKey({ created, onDone }: { created: ReplyOf<'create_api_key'>; onDone: () => void }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  return (
    <section className="panel notice" aria-labelledby="created-key-title" role="region">
      <h2 id="created-key-title" tabIndex={-1} ref={heading}>Key “{created.label}” created</h2>
      <p>Copy the key now: it is shown only once. Send it as <code>Authorization: Bearer &lt;key&gt;</code>.</p>
      <p className="secret-row">
        <code data-testid="created-key">{created.key}</code>
        <CopyButton value={created.key} label="Copy key" />
      </p>
      <button type="button" onClick={onDone}>Done, hide the key</button>
    </section>
  );
}
