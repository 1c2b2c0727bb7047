import { useState } from 'react';
import type { ApiKey, LoreClient } from '@lore/client';
import { useLore } from '../../app/lore-context';
import { ConfirmDialog } from '../../ui/ConfirmDialog';
import { ErrorBanner } from '../../ui/ErrorBanner';
import { SelectField } from '../../ui/fields';
import { PagedTable, type Column } from '../../ui/PagedTable';
import { offsetPage, skipOf, usePaged, type Page } from '../../ui/paging';
import { anyOf } from '../shared/options';
import { useAction } from '../../ui/action';

const PAGE_SIZE = 20;
type StatusFilter = '' | 'active' | 'inactive' | 'revoked';
const STATUSES = anyOf(['active', 'inactive', 'revoked'] as const);

async function keyPage(lore: LoreClient, status: StatusFilter, token: string | null): Promise<Page<ApiKey>> {
  const skip = skipOf(token);
  const page = await lore.apiKeys.list({ skip, limit: PAGE_SIZE, ...(status === '' ? {} : { status }) });
  return offsetPage(page.data, skip, page.has_more);
}

/** The workspace's keys with what each may do; revoking asks first (and revokes the keys it created). */
export function KeyList({ version }: { version: number }) {
  const { lore } = useLore();
  const [status, setStatus] = useState<StatusFilter>('active');
  const paged = usePaged((token) => keyPage(lore, status, token), `${status}/${version}`);
  const [revoking, setRevoking] = useState<ApiKey | undefined>();
  const request = useAction();

  const revoke = (key: ApiKey) => {
    setRevoking(undefined);
    void request.run(async () => {
      await lore.apiKeys.revoke(key.id);
      paged.reload();
    });
  };

  const columns: readonly Column<ApiKey>[] = [
    { header: 'Label', cell: (k) => <>{k.label}<br /><code className="small muted">{k.id}</code></> },
    { header: 'Permissions', cell: (k) => k.permissions.join(', ') || 'none' },
    { header: 'Collections', cell: (k) => (k.collections.length === 0 ? 'every collection' : k.collections.join(', ')) },
    { header: 'Addresses', cell: (k) => (k.ip_whitelist.length === 0 ? 'any' : k.ip_whitelist.join(', ')) },
    { header: 'Expires', cell: (k) => (k.expires_at === null ? 'never' : new Date(k.expires_at).toLocaleString()) },
    { header: 'Last used', cell: (k) => (k.last_used_at === null ? 'never' : new Date(k.last_used_at).toLocaleString()) },
    { header: 'Status', cell: (k) => k.status },
    {
      header: 'Actions',
      cell: (k) => (k.status === 'revoked' ? null : <button type="button" className="danger" onClick={() => setRevoking(k)} aria-label={`Revoke ${k.label}`}>Revoke</button>),
    },
  ];

  return (
    <section aria-labelledby="key-list-title">
      <h2 id="key-list-title">Keys</h2>
      <div className="row">
        <SelectField label="Status" name="status" value={status} onChange={setStatus} options={STATUSES} />
      </div>
      <ErrorBanner error={request.error} onDismiss={request.clearError} />
      <PagedTable caption="API keys" what="keys" columns={columns} paged={paged} rowKey={(k) => k.id} empty="No keys." />
      <ConfirmDialog open={revoking !== undefined} title="Revoke this key?" confirmLabel="Revoke" onConfirm={() => revoking && revoke(revoking)} onCancel={() => setRevoking(undefined)}>
        <p>“{revoking?.label}” and every key it created stop working at once. This cannot be undone.</p>
      </ConfirmDialog>
    </section>
  );
}
