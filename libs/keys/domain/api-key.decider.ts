import { conflict, invalid, notFound, type Decider } from '@lore/platform/kernel';
import type { ApiKeyCreatedData, ApiKeyEvent } from './api-key.events';

export type ApiKeyState =
  | { readonly status: 'absent' }
  | { readonly status: 'active' | 'inactive' | 'revoked'; readonly key: ApiKeyCreatedData; readonly updatedAt: string };

export type ApiKeyCommand =
  | { readonly kind: 'create'; readonly key: ApiKeyCreatedData; readonly now: string }
  | { readonly kind: 'revoke'; readonly keyId: string; readonly workspaceId: string; readonly at: string };

export const apiKeyDecider: Decider<ApiKeyCommand, ApiKeyState, ApiKeyEvent> = {
  initialState: () => ({ status: 'absent' }),

  decide(command, state) {
    switch (command.kind) {
      case 'create':
        if (state.status !== 'absent') throw conflict(`API key ${command.key.keyId} already exists`);
        if (command.key.expiresAt !== null && Date.parse(command.key.expiresAt) <= Date.parse(command.now)) {
          throw invalid(['body', 'expires_at'], 'Expiry must lie in the future');
        }
        return [{ type: 'keys.ApiKeyCreated', data: command.key }];
      case 'revoke':
        if (state.status === 'absent' || state.key.workspaceId !== command.workspaceId) throw notFound('API key');
        if (state.status === 'revoked') return []; // revoking twice changes nothing
        return [{ type: 'keys.ApiKeyRevoked', data: { keyId: command.keyId, workspaceId: command.workspaceId, revokedAt: command.at } }];
    }
  },

  evolve(state, event) {
    switch (event.type) {
      case 'keys.ApiKeyCreated':
        return { status: event.data.status, key: event.data, updatedAt: event.data.createdAt };
      case 'keys.ApiKeyRevoked':
        return state.status === 'absent' ? state : { ...state, status: 'revoked', updatedAt: event.data.revokedAt };
    }
  },
};
