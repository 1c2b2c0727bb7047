import { useMemo, useState } from 'react';
import { Router } from 'wouter';
import { clearSession, clientFor, loadSession, saveSession, type Session } from './session';
import { LoreContext, type SignedIn } from './lore-context';
import { SignIn } from './SignIn';
import { CONSOLE_BASE } from './routes';
import { Shell } from './Shell';

/** The console: the sign-in form until a credential works, then the shell with every screen under /console. */
export function App() {
  const [session, setSession] = useState<Session | null>(loadSession);
  const signedIn = useMemo<SignedIn | null>(
    () =>
      session === null
        ? null
        : {
            session,
            lore: clientFor(session),
            signOut: () => {
              clearSession();
              setSession(null);
            },
          },
    [session],
  );
  return (
    <Router base={CONSOLE_BASE}>
      {signedIn === null ? (
        <SignIn
          onSignedIn={(next) => {
            saveSession(next);
            setSession(next);
          }}
        />
      ) : (
        <LoreContext.Provider value={signedIn}>
          <Shell />
        </LoreContext.Provider>
      )}
    </Router>
  );
}
