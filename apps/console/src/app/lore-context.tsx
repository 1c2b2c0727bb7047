import { createContext, useContext } from 'react';
import type { LoreClient } from '@lore/client';
import type { Session } from './session';

export interface SignedIn {
  readonly session: Session;
  readonly lore: LoreClient;
  readonly signOut: () => void;
}

export const LoreContext = createContext<SignedIn | null>(null);

/** The signed-in session and its SDK client; every screen renders inside the shell, which provides it. */
export function useLore(): SignedIn {
  const value = useContext(LoreContext);
  if (value === null) throw new Error('useLore outside the signed-in shell');
  return value;
}
