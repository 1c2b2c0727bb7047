import { useState, type FormEvent } from 'react';
import { useAction } from '../ui/action';
import { ErrorBanner } from '../ui/ErrorBanner';
import { TextField } from '../ui/fields';
import { verifySession, type Session } from './session';

/** Sign-in with an API key or a JWT; the credential is checked against the API before it is kept. */
export function SignIn({ onSignedIn }: { onSignedIn: (session: Session) => void }) {
  const [token, setToken] = useState('');
  const [workspaceId, setWorkspaceId] = useState('');
  const { busy, error, run } = useAction();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const session: Session = workspaceId.trim() === '' ? { token: token.trim() } : { token: token.trim(), workspaceId: workspaceId.trim() };
    await run(async () => {
      await verifySession(session);
      onSignedIn(session);
    });
  };

  return (
    <main id="main" className="sign-in">
      <h1>Lore console</h1>
      <form onSubmit={(event) => void submit(event)} className="card stack">
        <p>Sign in with an API key (<code>lore_…</code>) or a JWT from your identity provider. It is kept in this tab only.</p>
        <ErrorBanner error={error} />
        <TextField label="API key or JWT" name="token" type="password" autoComplete="off" required value={token} onChange={setToken} />
        <TextField label="Workspace" name="workspace" hint="Only for a JWT naming several workspaces; empty: the credential's own." value={workspaceId} onChange={setWorkspaceId} />
        <button type="submit" className="primary" disabled={busy || token.trim() === ''}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
