import { useEffect, useState } from 'react';
import type { Connection, Integration, LoreClient, ReplyOf } from '@lore/client';
import { ConfirmDialog, ErrorBanner, useLore } from '../../ui';
import { Pager } from '../shared/Pager';
import { offsetPage, usePages, type Page } from '../shared/use-pages';
import { TestResult } from './TestResult';

const PAGE_SIZE = 20;

async function connectionPage(lore: LoreClient, token: string | undefined): Promise<Page<Connection>> {
  const skip = Number(token ?? 0);
  const page = await lore.connections.list({ skip, limit: PAGE_SIZE });
  return offsetPage(page.data, skip, page.has_more);
}

/** A credential as the API describes it: which fields are set and at most a short hint, never a value. */
function credentialText(connection: Connection): string {
  const credential = connection.credential;
  if (credential === null) return 'none';
  return `${credential.fields_set.join(', ') || 'no fields'}${credential.hint ? ` (${credential.hint})` : ''}`;
}

/** The workspace's connections: test one and see what the verification request answered; edit; delete. */
export function ConnectionList({ version, onEdit }: { version: number; onEdit: (entry: Integration, connection: Connection) => void }) {
  const lore = useLore();
  const pages = usePages('connections', (token) => connectionPage(lore, token));
  const [result, setResult] = useState<ReplyOf<'test_connection'> | undefined>();
  const [busy, setBusy] = useState<string | undefined>();
  const [error, setError] = useState<unknown>();
  const [deleting, setDeleting] = useState<Connection | undefined>();
  const { reload } = pages;
  useEffect(() => {
    if (version > 0) reload();
  }, [version, reload]);

  const act = async (connection: Connection, action: () => Promise<void>) => {
    setBusy(connection.id);
    try {
      await action();
      setError(undefined);
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(undefined);
    }
  };
  const test = (connection: Connection) => act(connection, async () => {
    setResult(await lore.connections.test(connection.id));
    reload();
  });
  const edit = (connection: Connection) => act(connection, async () => onEdit(await lore.integrations.get(connection.integration), connection));
  const remove = (connection: Connection) => act(connection, async () => {
    setDeleting(undefined);
    await lore.connections.delete(connection.id);
    reload();
  });

  return (
    <section aria-labelledby="connection-list-title" className="panel">
      <h2 id="connection-list-title">Your connections</h2>
      <ErrorBanner error={pages.error ?? error} />
      {result && <TestResult result={result} />}
      <table className="data-table" aria-busy={pages.loading}>
        <caption className="visually-hidden">Connections</caption>
        <thead>
          <tr>
            <th scope="col">Label</th>
            <th scope="col">Integration</th>
            <th scope="col">Status</th>
            <th scope="col">Credential</th>
            <th scope="col">Last tested</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {pages.items.map((connection) => (
            <tr key={connection.id}>
              <td>{connection.label}</td>
              <td>{connection.integration}</td>
              <td>
                {connection.status}
                {connection.status_reason && <span className="muted"> · {connection.status_reason}</span>}
              </td>
              <td>{credentialText(connection)}</td>
              <td>{connection.last_tested_at === null ? 'never' : new Date(connection.last_tested_at).toLocaleString()}</td>
              <td className="actions">
                <button type="button" disabled={busy === connection.id} onClick={() => void test(connection)} aria-label={`Test ${connection.label}`}>Test</button>
                <button type="button" disabled={busy === connection.id} onClick={() => void edit(connection)} aria-label={`Edit ${connection.label}`}>Edit</button>
                <button type="button" className="danger" disabled={busy === connection.id} onClick={() => setDeleting(connection)} aria-label={`Delete ${connection.label}`}>Delete</button>
              </td>
            </tr>
          ))}
          {!pages.loading && pages.items.length === 0 && (
            <tr>
              <td colSpan={6}>No connections yet: pick an integration in the catalog.</td>
            </tr>
          )}
        </tbody>
      </table>
      <Pager pages={pages} label="Connections" />
      <ConfirmDialog
        open={deleting !== undefined}
        title="Delete this connection?"
        message={`“${deleting?.label ?? ''}” is deleted and its stored credential shredded.`}
        confirmLabel="Delete"
        onConfirm={() => deleting && void remove(deleting)}
        onCancel={() => setDeleting(undefined)}
      />
    </section>
  );
}
