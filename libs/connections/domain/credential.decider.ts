import { conflict, notFound, type Decider } from '@lore/platform/kernel';
import type { CredentialEvent } from './credential.events';

interface Owner {
  readonly workspaceId: string;
  readonly userId: string;
}

export type LiveCredential = Owner & {
  readonly status: 'live';
  readonly credentialId: string;
  readonly integration: string;
  readonly authMethodId: string;
  readonly secret: string;
  readonly version: number;
  /** The connections using it; the last one to let go erases it. */
  readonly attachments: readonly string[];
};

export type CredentialState = { readonly status: 'absent' } | LiveCredential | (Owner & { readonly status: 'erased'; readonly credentialId: string });

type Stored = Extract<CredentialEvent, { type: 'connections.CredentialStored' }>['data'];
type Sealed = Pick<Stored, 'secret' | 'fieldsSet' | 'hint'>;

export type CredentialCommand =
  | { readonly kind: 'store'; readonly credential: Omit<Stored, 'storedAt'>; readonly at: string }
  /** Another connection of the same owner reuses it (`credential_id`). */
  | (Owner & { readonly kind: 'attach'; readonly connectionId: string; readonly at: string })
  /** A connection deleted or given another credential lets go; idempotent. */
  | { readonly kind: 'detach'; readonly connectionId: string; readonly at: string }
  /** A refreshed token, decided on the version it refreshed: a concurrent refresh of the same version loses (409). */
  | { readonly kind: 'refresh'; readonly sealed: Sealed; readonly ofVersion: number; readonly at: string };

/** A credential exists for a caller only in its own workspace and if the caller owns it. */
export function ownedCredential(state: CredentialState, owner: Owner): LiveCredential {
  if (state.status === 'live' && state.workspaceId === owner.workspaceId && state.userId === owner.userId) return state;
  throw notFound('Credential');
}

export const credentialDecider: Decider<CredentialCommand, CredentialState, CredentialEvent> = {
  initialState: () => ({ status: 'absent' }),

  decide(command, state) {
    switch (command.kind) {
      case 'store':
        if (state.status !== 'absent') throw conflict(`credential ${command.credential.credentialId} already exists`);
        return [{ type: 'connections.CredentialStored', data: { ...command.credential, storedAt: command.at } }];
      case 'attach': {
        const credential = ownedCredential(state, command);
        if (credential.attachments.includes(command.connectionId)) return [];
        return [{ type: 'connections.CredentialAttached', data: { credentialId: credential.credentialId, connectionId: command.connectionId, at: command.at } }];
      }
      case 'detach': {
        if (state.status !== 'live' || !state.attachments.includes(command.connectionId)) return [];
        const detached: CredentialEvent = { type: 'connections.CredentialDetached', data: { credentialId: state.credentialId, connectionId: command.connectionId, at: command.at } };
        if (state.attachments.length > 1) return [detached];
        return [detached, { type: 'connections.CredentialErased', data: { credentialId: state.credentialId, workspaceId: state.workspaceId, userId: state.userId, erasedAt: command.at } }];
      }
      case 'refresh':
        if (state.status !== 'live') throw notFound('Credential');
        if (state.version !== command.ofVersion) throw conflict('the credential was refreshed meanwhile');
        return [{ type: 'connections.CredentialRefreshed', data: { credentialId: state.credentialId, ...command.sealed, version: state.version + 1, refreshedAt: command.at } }];
    }
  },

  evolve(state, event) {
    switch (event.type) {
      case 'connections.CredentialStored': {
        const d = event.data;
        return { status: 'live', credentialId: d.credentialId, workspaceId: d.workspaceId, userId: d.userId, integration: d.integration, authMethodId: d.authMethodId, secret: d.secret, version: 1, attachments: [d.attachedTo] };
      }
      case 'connections.CredentialAttached':
        return state.status === 'live' ? { ...state, attachments: [...state.attachments, event.data.connectionId] } : state;
      case 'connections.CredentialDetached':
        return state.status === 'live' ? { ...state, attachments: state.attachments.filter((id) => id !== event.data.connectionId) } : state;
      case 'connections.CredentialRefreshed':
        return state.status === 'live' ? { ...state, secret: event.data.secret, version: event.data.version } : state;
      case 'connections.CredentialErased':
        return { status: 'erased', credentialId: event.data.credentialId, workspaceId: event.data.workspaceId, userId: event.data.userId };
    }
  },
};
