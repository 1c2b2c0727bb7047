import { useState, type FormEvent } from 'react';
import { useRouter } from 'wouter';
import type { Integration } from '@lore/client';
import { useLore } from '../../app/lore-context';
import { ErrorBanner } from '../../ui/ErrorBanner';
import { CheckboxField, SelectField, TextField } from '../../ui/fields';
import { useAction } from '../../ui/action';
import { authorizationCodeMethods, connectRedirectUrl, scopesToAsk } from './oauth-connect';
import './oauth-connect.css';

/**
 * Connect an OAuth catalog entry through a connect session (README, "Connect sessions (OAuth)"):
 * the user picks the scopes (the catalog's, ticked) and whose connection it is, Lore answers a
 * one-time URL, and this tab goes there; the provider sends it back to the connect-result page.
 * The same tab rather than a popup: popups are blocked or become tabs on phones, and the
 * keyboard focus would have to travel between windows. No token passes through the console.
 */
export function OAuthConnect({ entry }: { entry: Integration }) {
  const { lore } = useLore();
  const router = useRouter();
  const methods = authorizationCodeMethods(entry);
  const defaultMethod = methods.find((method) => method.id === entry.default_auth_method_id) ?? methods[0];
  const [methodId, setMethodId] = useState(defaultMethod?.id ?? '');
  const catalogScopes = methods.find((method) => method.id === methodId)?.oauth2?.scopes ?? [];
  const [ticked, setTicked] = useState<readonly string[]>(catalogScopes);
  const [typed, setTyped] = useState('');
  const [userId, setUserId] = useState('');
  const request = useAction();
  if (defaultMethod === undefined) return null;

  const chooseMethod = (id: string) => {
    setMethodId(id);
    setTicked(methods.find((method) => method.id === id)?.oauth2?.scopes ?? []);
  };
  const tick = (scope: string, on: boolean) => setTicked((now) => (on ? [...now, scope] : now.filter((s) => s !== scope)));
  const start = (event: FormEvent) => {
    event.preventDefault();
    void request.run(async () => {
      const session = await lore.connectSessions.create({
        integration: entry.id,
        auth_method_id: methodId,
        scopes: scopesToAsk(ticked, typed),
        redirect_url: connectRedirectUrl(window.location.origin, router.base),
        ...(userId.trim() === '' ? {} : { user_id: userId.trim() }),
      });
      // connect_url is only in this answer; it is one-time and carries no token of the user's.
      if (session.connect_url !== null) window.location.assign(session.connect_url);
    });
  };

  const titleId = `oauth-connect-${entry.id}`;
  return (
    <section className="card stack oauth-connect" aria-labelledby={titleId}>
      <h2 id={titleId}>Sign in with {entry.name}</h2>
      <p className="muted">
        You go to {entry.name} to approve access, then come back here. Lore keeps the tokens; they are never shown.
      </p>
      <form className="stack" onSubmit={start}>
        {methods.length > 1 && (
          <SelectField label="OAuth app" name="oauth_method" value={methodId} onChange={chooseMethod} options={methods.map((method) => ({ value: method.id, label: method.label }))} />
        )}
        <fieldset className="scope-choices">
          <legend>Scopes</legend>
          {catalogScopes.map((scope) => (
            <CheckboxField key={scope} label={scope} name="scope" checked={ticked.includes(scope)} onChange={(on) => tick(scope, on)} />
          ))}
          <TextField label="More scopes" name="more_scopes" value={typed} onChange={setTyped} hint={`Separated by spaces, as ${entry.name} names them.`} />
        </fieldset>
        <TextField label="For user" name="user_id" value={userId} onChange={setUserId} hint="The user id the connection belongs to; empty: you." autoComplete="off" />
        <ErrorBanner error={request.error} onDismiss={request.clearError} />
        <div className="actions">
          <button type="submit" className="primary" disabled={request.busy}>
            Continue to {entry.name}
          </button>
        </div>
      </form>
    </section>
  );
}
