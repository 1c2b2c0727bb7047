import { Suspense, useEffect, useRef, useState } from 'react';
import { Link, Redirect, Route, Switch, useLocation } from 'wouter';
import { Loading } from '../ui/states';
import { useLore } from './lore-context';
import { ROUTES } from './routes';
import { credentialKind } from './session';

/**
 * The signed-in layout: a skip link, a header with the nav toggle (narrow screens) and sign
 * out, the nav, and the current screen. On a route change the nav closes and focus moves to
 * the main region, so keyboard and screen-reader users land on the new screen.
 */
export function Shell() {
  const { session, signOut } = useLore();
  const [location] = useLocation();
  const [navOpen, setNavOpen] = useState(false);
  const main = useRef<HTMLElement>(null);
  const first = useRef(true);

  useEffect(() => {
    setNavOpen(false);
    if (first.current) first.current = false;
    else main.current?.focus();
  }, [location]);

  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <button type="button" className="nav-toggle" aria-expanded={navOpen} aria-controls="nav" onClick={() => setNavOpen(!navOpen)}>
          Menu
        </button>
        <span className="brand">Lore console</span>
        <span className="who">
          {credentialKind(session.token)}
          {session.workspaceId === undefined ? '' : ` · ${session.workspaceId}`}
        </span>
        <button type="button" onClick={signOut}>
          Sign out
        </button>
      </header>
      <nav id="nav" aria-label="Screens" className={navOpen ? 'nav open' : 'nav'}>
        <ul>
          {ROUTES.map((route) => (
            <li key={route.path}>
              <Link href={route.path} className={location.startsWith(route.path) ? 'active' : ''} aria-current={location.startsWith(route.path) ? 'page' : undefined}>
                {route.label}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" ref={main} tabIndex={-1}>
        <Suspense fallback={<Loading what="screen" />}>
          <Switch>
            {ROUTES.map((route) => (
              <Route key={route.path} path={route.path} nest>
                <route.screen />
              </Route>
            ))}
            <Route>
              <Redirect to={ROUTES[0]?.path ?? '/'} replace />
            </Route>
          </Switch>
        </Suspense>
      </main>
    </div>
  );
}
