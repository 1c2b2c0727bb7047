import { deciderSpec } from '@lore/platform/testing';
import { credentialDecider } from './credential.decider';
import type { CredentialEvent } from './credential.events';

const owner = { workspaceId: 'ws', userId: 'alice' } as const;
const at = '2026-01-01T00:00:00.000Z';
const spec = deciderSpec(credentialDecider);
const sealed = { secret: 'dk_1:abc', fieldsSet: ['api_key'], hint: '…WXYZ' };
const stored: CredentialEvent = {
  type: 'connections.CredentialStored',
  data: { credentialId: 'cred_1', ...owner, integration: 'openai', authMethodId: 'api_key', ...sealed, attachedTo: 'con_1', storedAt: at },
};
const attached: CredentialEvent = { type: 'connections.CredentialAttached', data: { credentialId: 'cred_1', connectionId: 'con_2', at } };
const detached = (connectionId: string): CredentialEvent => ({ type: 'connections.CredentialDetached', data: { credentialId: 'cred_1', connectionId, at } });
const erased: CredentialEvent = { type: 'connections.CredentialErased', data: { credentialId: 'cred_1', ...owner, erasedAt: at } };

describe('credentialDecider', () => {
  it('is erased when the last connection using it lets go, and not before', () => {
    spec.given([stored, attached]).when({ kind: 'detach', connectionId: 'con_1', at }).then([detached('con_1')]);
    spec.given([stored, attached, detached('con_1')]).when({ kind: 'detach', connectionId: 'con_2', at }).then([detached('con_2'), erased]);
    spec.given([stored]).when({ kind: 'detach', connectionId: 'con_1', at }).then([detached('con_1'), erased]);
  });

  it('detaches idempotently: an unknown connection or an erased credential changes nothing', () => {
    spec.given([stored]).when({ kind: 'detach', connectionId: 'con_9', at }).thenNothingHappened();
    spec.given([stored, detached('con_1'), erased]).when({ kind: 'detach', connectionId: 'con_1', at }).thenNothingHappened();
  });

  it('lets only its owner attach it, never once erased', () => {
    spec.given([stored]).when({ kind: 'attach', ...owner, connectionId: 'con_2', at }).then([attached]);
    spec.given([stored, attached]).when({ kind: 'attach', ...owner, connectionId: 'con_2', at }).thenNothingHappened();
    spec.given([stored]).when({ kind: 'attach', workspaceId: 'ws', userId: 'bob', connectionId: 'con_2', at }).thenThrows('not_found');
    spec.given([stored, detached('con_1'), erased]).when({ kind: 'attach', ...owner, connectionId: 'con_2', at }).thenThrows('not_found');
  });

  it('refreshes once per version: a concurrent refresh of the same version is refused', () => {
    const refreshed: CredentialEvent = { type: 'connections.CredentialRefreshed', data: { credentialId: 'cred_1', ...sealed, version: 2, refreshedAt: at } };
    spec.given([stored]).when({ kind: 'refresh', sealed, ofVersion: 1, at }).then([refreshed]);
    spec.given([stored, refreshed]).when({ kind: 'refresh', sealed, ofVersion: 1, at }).thenThrows('conflict');
  });
});
