import { useState, type FormEvent } from 'react';
import type { ReplyOf } from '@lore/client';
import { ErrorBanner, useLore } from '../../ui';
import { FieldIssues } from '../shared/FieldIssues';
import { issuesByField } from '../shared/api-issues';
import { createKeyBody, EMPTY_KEY_FORM, PERMISSION_ACTIONS, PERMISSION_RESOURCES, type KeyFormValues } from './key-request';

const FIELDS = ['label', 'permissions', 'collections', 'ip_whitelist', 'expires_at'];

/**
 * A new key: label, permissions (resource × read/write), the collections it may touch, the
 * addresses it may be used from and when it expires. The API checks each value; what it
 * refuses is shown under the field it names.
 */
export function CreateKeyForm({ onCreated }: { onCreated: (key: ReplyOf<'create_api_key'>) => void }) {
  const lore = useLore();
  const [values, setValues] = useState<KeyFormValues>(EMPTY_KEY_FORM);
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const set = (patch: Partial<KeyFormValues>) => setValues((current) => ({ ...current, ...patch }));
  const toggle = (permission: string) => {
    const permissions = new Set(values.permissions);
    if (!permissions.delete(permission)) permissions.add(permission);
    set({ permissions });
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    try {
      onCreated(await lore.apiKeys.create(createKeyBody(values)));
      setValues(EMPTY_KEY_FORM);
      setError(undefined);
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };

  const issues = issuesByField(error, FIELDS);
  const described = (field: string) => (issues[field] ? { 'aria-invalid': true, 'aria-describedby': `key-${field}-issues` } : {});
  return (
    <form className="panel stacked-form" onSubmit={(e) => void submit(e)} aria-labelledby="create-key-title">
      <h2 id="create-key-title">Create a key</h2>
      {issues[''] && <ErrorBanner error={error} />}
      <label>
        Label
        <input name="label" required maxLength={255} value={values.label} onChange={(e) => set({ label: e.target.value })} {...described('label')} />
      </label>
      <FieldIssues id="key-label-issues" issues={issues['label']} />
      <fieldset {...described('permissions')}>
        <legend>Permissions</legend>
        <table className="permission-grid">
          <thead>
            <tr>
              <th scope="col">Resource</th>
              {PERMISSION_ACTIONS.map((action) => <th scope="col" key={action}>{action}</th>)}
            </tr>
          </thead>
          <tbody>
            {PERMISSION_RESOURCES.map((resource) => (
              <tr key={resource}>
                <th scope="row">{resource}</th>
                {PERMISSION_ACTIONS.map((action) => (
                  <td key={action}>
                    <input type="checkbox" aria-label={`${resource}:${action}`} checked={values.permissions.has(`${resource}:${action}`)} onChange={() => toggle(`${resource}:${action}`)} />
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </fieldset>
      <FieldIssues id="key-permissions-issues" issues={issues['permissions']} />
      <label>
        Collections (one id per line; empty: every collection)
        <textarea name="collections" rows={2} value={values.collections} onChange={(e) => set({ collections: e.target.value })} {...described('collections')} />
      </label>
      <FieldIssues id="key-collections-issues" issues={issues['collections']} />
      <label>
        Allowed addresses (IP or CIDR, one per line; empty: any)
        <textarea name="ip_whitelist" rows={2} value={values.ipRules} onChange={(e) => set({ ipRules: e.target.value })} {...described('ip_whitelist')} />
      </label>
      <FieldIssues id="key-ip_whitelist-issues" issues={issues['ip_whitelist']} />
      <label>
        Expires (empty: never)
        <input name="expires_at" type="datetime-local" value={values.expiresAt} onChange={(e) => set({ expiresAt: e.target.value })} {...described('expires_at')} />
      </label>
      <FieldIssues id="key-expires_at-issues" issues={issues['expires_at']} />
      <button type="submit" disabled={busy}>Create key</button>
    </form>
  );
}
