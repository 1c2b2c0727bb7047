import { LoreClient } from '@lore/client';

/** What the console signs in with: an API key (`lore_…`) or a JWT, both sent as `Authorization: Bearer`. */
export interface Session {
  readonly token: string;
  /** `X-Workspace-Id`: for a JWT naming several workspaces; absent, the credential's own. */
  readonly workspaceId?: string;
}

/** Kept for the tab only (sessionStorage): closing the tab signs out, and no other tab reads it. */
const STORAGE_KEY = 'lore.console.session';

export function credentialKind(token: string): 'API key' | 'JWT' {
  return token.startsWith('lore_') ? 'API key' : 'JWT';
}

export function loadSession(): Session | null {
  const text = sessionStorage.getItem(STORAGE_KEY);
  if (text === null) return null;
  try {
    const value = JSON.parse(text) as Partial<Session>;
    if (typeof value.token !== 'string' || value.token === '') return null;
    return typeof value.workspaceId === 'string' && value.workspaceId !== '' ? { token: value.token, workspaceId: value.workspaceId } : { token: value.token };
  } catch {
    return null;
  }
}

export function saveSession(session: Session): void {
  sessionStorage.setItem(STORAGE_KEY, JSON.stringify(session));
}

export function clearSession(): void {
  sessionStorage.removeItem(STORAGE_KEY);
}

/** The SDK client for a session: the API is the origin that served the console. */
export function clientFor(session: Session): LoreClient {
  return new LoreClient({ baseUrl: window.location.origin, token: session.token, ...(session.workspaceId === undefined ? {} : { workspaceId: session.workspaceId }) });
}

/**
 * Checks a credential before keeping it: listing the integration catalog needs no permission,
 * only a valid token and a workspace the caller may use, so any key or JWT that works passes.
 */
export async function verifySession(session: Session): Promise<void> {
  await clientFor(session).integrations.list();
}
