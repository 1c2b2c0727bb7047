import { useState } from 'react';
import type { ReplyOf } from '@lore/client';
import { CreateKeyForm } from './CreateKeyForm';
import { CreatedKey } from './CreatedKey';
import { KeyList } from './KeyList';

/** API keys of the workspace: create one (its secret is shown once), list them, revoke. */
export function ApiKeysScreen() {
  const [created, setCreated] = useState<ReplyOf<'create_api_key'> | undefined>();
  const [listVersion, setListVersion] = useState(0);
  return (
    <section aria-labelledby="api-keys-title" className="screen">
      <h1 id="api-keys-title">API keys</h1>
      {created && <CreatedKey created={created} onDone={() => setCreated(undefined)} />}
      <div className="screen-columns">
        <CreateKeyForm onCreated={(key) => { setCreated(key); setListVersion((n) => n + 1); }} />
        <KeyList version={listVersion} />
      </div>
    </section>
  );
}
