import { useState, type FormEvent } from 'react';
import type { ReplyOf } from '@lore/client';
import { useLore } from '../../app/lore-context';
import { ErrorBanner } from '../../ui/ErrorBanner';
import { TextAreaField, TextField } from '../../ui/fields';
import { formIssues } from '../shared/api-issues';
import { useAction } from '../../ui/action';
import { createKeyBody, EMPTY_KEY_FORM, PERMISSION_ACTIONS, PERMISSION_RESOURCES, type KeyFormValues } from './key-request';

const FIELDS = ['label', 'permissions', 'collections', 'ip_whitelist', 'expires_at'];

/**
 * A new key: label, permissions (resource × read/write), the collections it may touch, the
 * addresses it may be used from and when it expires. The API checks each value; what it
 * refuses is shown under the field it names.
 */
export function CreateKeyForm({ onCreated }: { onCreated: (key: ReplyOf<'create_api_key'>) => void }) {
  const { lore } = useLore();
  const [values, setValues] = useState<KeyFormValues>(EMPTY_KEY_FORM);
  const request = useAction();
  const set = (patch: Partial<KeyFormValues>) => setValues((current) => ({ ...current, ...patch }));
  const toggle = (permission: string) => {
    const permissions = new Set(values.permissions);
    if (!permissions.delete(permission)) permissions.add(permission);
    set({ permissions });
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void request.run(async () => {
      onCreated(await lore.apiKeys.create(createKeyBody(values)));
      setValues(EMPTY_KEY_FORM);
    });
  };

  const { of: issue, unplaced } = formIssues(request.error, FIELDS);
  return (
    <form className="card stack" onSubmit={submit} aria-labelledby="create-key-title">
      <h2 id="create-key-title">Create a key</h2>
      {unplaced ? <ErrorBanner error={request.error} /> : null}
      <TextField label="Label" name="label" required maxLength={255} value={values.label} onChange={(label) => set({ label })} error={issue('label')} />
      <fieldset aria-describedby={issue('permissions') === undefined ? undefined : 'key-permissions-error'}>
        <legend>Permissions</legend>
        <div className="table-scroll">
          <table>
            <caption className="small muted">What the key may do; `write` does not include `read`.</caption>
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
        </div>
        {issue('permissions') === undefined ? null : <span id="key-permissions-error" className="field-error">{issue('permissions')}</span>}
      </fieldset>
      <TextAreaField label="Collections" name="collections" rows={2} value={values.collections} onChange={(collections) => set({ collections })} error={issue('collections')} hint="Collection ids, one per line; empty: every collection" />
      <TextAreaField label="Allowed addresses" name="ip_whitelist" rows={2} value={values.ipRules} onChange={(ipRules) => set({ ipRules })} error={issue('ip_whitelist')} hint="IP addresses or CIDR ranges, one per line; empty: any address" />
      <TextField label="Expires" name="expires_at" type="datetime-local" value={values.expiresAt} onChange={(expiresAt) => set({ expiresAt })} error={issue('expires_at')} hint="Empty: never" />
      <div className="actions">
        <button type="submit" className="primary" disabled={request.busy}>Create key</button>
      </div>
    </form>
  );
}
