import { useEffect, useState } from 'react';
import type { ApiKey, LoreClient } from '@lore/client';
import { ConfirmDialog, ErrorBanner, useLore } from '../../ui';
import { Pager } from '../shared/Pager';
import { offsetPage, usePages, type Page } from '../shared/use-pages';

const PAGE_SIZE = 20;
type StatusFilter = '' | 'active' | 'inactive' | 'revoked';

async function keyPage(lore: LoreClient, status: StatusFilter, token: string | undefined): Promise<Page<ApiKey>> {
  const skip = Number(token ?? 0);
  const page = await lore.apiKeys.list({ skip, limit: PAGE_SIZE, ...(status === '' ? {} : { status }) });
  return offsetPage(page.data, skip, page.has_more);
}

/** The workspace's keys with what each may do; revoking asks first (and revokes the keys it created). */
export function KeyList({ version }: { version: number }) {
  const lore = useLore();
  const [status, setStatus] = useState<StatusFilter>('active');
  const pages = usePages(status, (token) => keyPage(lore, status, token));
  const [revoking, setRevoking] = useState<ApiKey | undefined>();
  const [revokeError, setRevokeError] = useState<unknown>();
  const { reload } = pages;
  useEffect(() => {
    if (version > 0) reload();
  }, [version, reload]);

  const revoke = async (key: ApiKey) => {
    try {
      await lore.apiKeys.revoke(key.id);
      setRevokeError(undefined);
      reload();
    } catch (error) {
      setRevokeError(error);
    } finally {
      setRevoking(undefined);
    }
  };

  return (
    <div>
      <label className="inline-filter">
        Status
        <select value={status} onChange={(e) => setStatus(e.target.value as StatusFilter)}>
          <option value="">any</option>
          <option value="active">active</option>
          <option value="inactive">inactive</option>
          <option value="revoked">revoked</option>
        </select>
      </label>
      <ErrorBanner error={pages.error ?? revokeError} />
      <table className="data-table" aria-busy={pages.loading}>
        <caption>API keys</caption>
        <thead>
          <tr>
            <th scope="col">Label</th>
            <th scope="col">Permissions</th>
            <th scope="col">Scope</th>
            <th scope="col">Expires</th>
            <th scope="col">Status</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {pages.items.map((key) => (
            <tr key={key.id}>
              <td>
                {key.label}
                <br />
                <code className="muted">{key.id}</code>
              </td>
              <td>{key.permissions.join(', ') || 'none'}</td>
              <td>
                {key.collections.length === 0 ? 'every collection' : key.collections.join(', ')}
                <br />
                {key.ip_whitelist.length === 0 ? 'any address' : key.ip_whitelist.join(', ')}
              </td>
              <td>{key.expires_at === null ? 'never' : new Date(key.expires_at).toLocaleString()}</td>
              <td>{key.status}</td>
              <td className="actions">
                {key.status !== 'revoked' && (
                  <button type="button" className="danger" onClick={() => setRevoking(key)} aria-label={`Revoke ${key.label}`}>
                    Revoke
                  </button>
                )}
              </td>
            </tr>
          ))}
          {!pages.loading && pages.items.length === 0 && (
            <tr>
              <td colSpan={6}>No keys.</td>
            </tr>
          )}
        </tbody>
      </table>
      <Pager pages={pages} label="API keys" />
      <ConfirmDialog
        open={revoking !== undefined}
        title="Revoke this key?"
        message={`“${revoking?.label ?? ''}” and every key it created stop working at once. This cannot be undone.`}
        confirmLabel="Revoke"
        onConfirm={() => revoking && void revoke(revoking)}
        onCancel={() => setRevoking(undefined)}
      />
    </div>
  );
}
