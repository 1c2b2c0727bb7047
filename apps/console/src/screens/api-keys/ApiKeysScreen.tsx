import { useState } from 'react';
import '../shared/screens.css';
import type { ReplyOf } from '@lore/client';
import { CreateKeyForm } from './CreateKeyForm';
import { ShownOnce } from '../shared/ShownOnce';
import { KeyList } from './KeyList';

/** API keys of the workspace: create one (its secret is shown once), list them, revoke. */
export default function ApiKeysScreen() {
  const [created, setCreated] = useState<ReplyOf<'create_api_key'> | undefined>();
  const [listVersion, setListVersion] = useState(0);
  return (
    <section aria-labelledby="api-keys-title">
      <div className="page-head">
        <h1 id="api-keys-title">API keys</h1>
      </div>
      {created && (
        <ShownOnce title={`Key “${created.label}” created`} value={created.key} copyLabel="Copy key" onDone={() => setCreated(undefined)}>
          <p>Copy the key now: it is shown only once. Send it as <code>Authorization: Bearer &lt;key&gt;</code>.</p>
        </ShownOnce>
      )}
      <div>
        <CreateKeyForm onCreated={(key) => { setCreated(key); setListVersion((n) => n + 1); }} />
        <KeyList version={listVersion} />
      </div>
    </section>
  );
}
