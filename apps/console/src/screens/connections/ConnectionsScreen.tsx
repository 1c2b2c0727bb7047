import { lazy, Suspense, useState } from 'react';
import { Route } from 'wouter';
import '../shared/screens.css';
import type { Connection, Integration } from '@lore/client';
import { Loading } from '../../ui/states';
import { Catalog } from './Catalog';
import { ConnectionList } from './ConnectionList';
import { ConnectResult } from './ConnectResult';
import { OAuthConnect } from './OAuthConnect';
import { authorizationCodeMethods, CONNECT_RESULT_PATH } from './oauth-connect';

// rjsf and Ajv are most of this screen's weight: loaded when a form is first opened, not with the console.
const ConnectionForm = lazy(() => import('./ConnectionForm'));

/** What the form is open for: a new connection to a catalog entry, or editing one. */
type Editing = { readonly entry: Integration; readonly connection?: Connection };

/**
 * Connections: the integration catalog browsed by category, a form generated from the chosen
 * entry's JSON Schemas, and the workspace's connections with their test results.
 */
export default function ConnectionsScreen() {
  const [editing, setEditing] = useState<Editing | undefined>();
  const [listVersion, setListVersion] = useState(0);
  return (
    <section aria-labelledby="connections-title">
      <div className="page-head">
        <h1 id="connections-title">Connections</h1>
      </div>
      <Route path={CONNECT_RESULT_PATH}><ConnectResult /></Route>
      {editing && !editing.connection && authorizationCodeMethods(editing.entry).length > 0 && <OAuthConnect key={editing.entry.id} entry={editing.entry} />}
      {editing && (
        <Suspense fallback={<Loading what="the form" />}>
          <ConnectionForm
            // A form per entry and connection: opening another starts from its own state.
            key={`${editing.entry.id}/${editing.connection?.id ?? 'new'}`}
            entry={editing.entry}
            {...(editing.connection ? { connection: editing.connection } : {})}
            onSaved={() => { setEditing(undefined); setListVersion((n) => n + 1); }}
            onCancel={() => setEditing(undefined)}
          />
        </Suspense>
      )}
      <ConnectionList version={listVersion} onEdit={(entry, connection) => setEditing({ entry, connection })} />
      <Catalog onConnect={(entry) => setEditing({ entry })} />
    </section>
  );
}
