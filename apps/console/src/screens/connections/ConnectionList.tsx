import { useState } from 'react';
import type { Connection, Integration, LoreClient, ReplyOf } from '@lore/client';
import { useLore } from '../../app/lore-context';
import { ConfirmDialog } from '../../ui/ConfirmDialog';
import { ErrorBanner } from '../../ui/ErrorBanner';
import { PagedTable, type Column } from '../../ui/PagedTable';
import { offsetPage, skipOf, usePaged, type Page } from '../../ui/paging';
import { useAction } from '../../ui/action';
import { TestResult } from './TestResult';

const PAGE_SIZE = 20;

async function connectionPage(lore: LoreClient, token: string | null): Promise<Page<Connection>> {
  const skip = skipOf(token);
  const page = await lore.connections.list({ skip, limit: PAGE_SIZE });
  return offsetPage(page.data, skip, page.has_more);
}

/** A credential as the API describes it: which fields are set and at most a short hint, never a value. */
function credentialText(connection: Connection): string {
  const credential = connection.credential;
  if (credential === null) return 'none';
  return `${credential.fields_set.join(', ') || 'no fields'}${credential.hint ? ` (${credential.hint})` : ''}`;
}

/** The workspace's connections: test one and see what its verification request answered; edit; delete. */
export function ConnectionList({ version, onEdit }: { version: number; onEdit: (entry: Integration, connection: Connection) => void }) {
  const { lore } = useLore();
  const paged = usePaged((token) => connectionPage(lore, token), `connections/${version}`);
  const [result, setResult] = useState<ReplyOf<'test_connection'> | undefined>();
  const [deleting, setDeleting] = useState<Connection | undefined>();
  const request = useAction();
  const replace = (saved: Connection) => paged.update((items) => items.map((item) => (item.id === saved.id ? saved : item)));

  const test = (connection: Connection) =>
    void request.run(async () => {
      setResult(undefined);
      const answer = await lore.connections.test(connection.id);
      setResult(answer);
      replace(answer.connection);
    });
  const edit = (connection: Connection) => void request.run(async () => onEdit(await lore.integrations.get(connection.integration), connection));
  const remove = (connection: Connection) => {
    setDeleting(undefined);
    void request.run(async () => {
      await lore.connections.delete(connection.id);
      paged.update((items) => items.filter((item) => item.id !== connection.id));
    });
  };

  const columns: readonly Column<Connection>[] = [
    { header: 'Label', cell: (c) => c.label },
    { header: 'Integration', cell: (c) => c.integration },
    { header: 'Status', cell: (c) => <>{c.status}{c.status_reason ? <span className="muted small"> · {c.status_reason}</span> : null}</> },
    { header: 'Credential', cell: credentialText },
    { header: 'Last tested', cell: (c) => (c.last_tested_at === null ? 'never' : new Date(c.last_tested_at).toLocaleString()) },
    {
      header: 'Actions',
      cell: (c) => (
        <span className="row">
          <button type="button" disabled={request.busy} onClick={() => test(c)} aria-label={`Test ${c.label}`}>Test</button>
          <button type="button" disabled={request.busy} onClick={() => edit(c)} aria-label={`Edit ${c.label}`}>Edit</button>
          <button type="button" className="danger" disabled={request.busy} onClick={() => setDeleting(c)} aria-label={`Delete ${c.label}`}>Delete</button>
        </span>
      ),
    },
  ];

  return (
    <section aria-labelledby="connection-list-title">
      <h2 id="connection-list-title">Your connections</h2>
      <ErrorBanner error={request.error} onDismiss={request.clearError} />
      {result === undefined ? null : <TestResult result={result} />}
      <PagedTable caption="Connections" what="connections" columns={columns} paged={paged} rowKey={(c) => c.id} empty="No connections yet: pick an integration in the catalog below." />
      <ConfirmDialog open={deleting !== undefined} title="Delete this connection?" onConfirm={() => deleting && remove(deleting)} onCancel={() => setDeleting(undefined)}>
        <p>“{deleting?.label}” is deleted and its stored credential shredded.</p>
      </ConfirmDialog>
    </section>
  );
}
