import { createHash, randomBytes } from 'node:crypto';
import { newId, type Clock, type Position } from '@lore/platform/kernel';
import type { EventStore } from '@lore/platform/event-store/port';
import { handleCommand } from '@lore/platform/cqrs';
import type { Keyring } from '@lore/platform/crypto';
import type { ProjectionSet } from '@lore/platform/projections';
import { API_KEY_PREFIX, type ApiKeyRecord, type ApiKeyRef, type CreateApiKeyCommand, type CreatedApiKey } from '@lore/keys/contracts';
import { apiKeyDecider, apiKeyStreamId, upcastApiKeyEvent } from '@lore/keys/domain';
import { toApiKeyRecord, type ApiKeyDoc } from './api-keys.read-model';
import type { KeysQueries } from './keys.queries';

const apiKeyAggregate = { decider: apiKeyDecider, upcast: upcastApiKeyEvent };
import { SECRET_PURPOSE } from './keys.queries';

export interface KeysCommandDeps {
  readonly events: EventStore;
  readonly keyring: Keyring;
  readonly projections: ProjectionSet;
  readonly queries: KeysQueries;
  readonly clock: Clock;
  readonly readYourWritesTimeoutMs: number;
}

export class KeysCommands {
  constructor(private readonly deps: KeysCommandDeps) {}

  async create(command: CreateApiKeyCommand): Promise<CreatedApiKey> {
    const now = this.deps.clock.now();
    const keyId = newId('key', now.getTime());
    const secret = randomBytes(32).toString('base64url');
    const at = now.toISOString();
    const data = {
      keyId,
      workspaceId: command.workspaceId,
      label: command.label,
      status: command.status,
      expiresAt: command.expiresAt,
      permissions: command.permissions,
      ipWhitelist: command.ipWhitelist,
      collections: command.collections,
      createdBy: command.createdBy,
      secretVerifier: this.deps.keyring.verifier(SECRET_PURPOSE, secret),
      createdAt: at,
    };
    const result = await handleCommand(this.deps.events, apiKeyAggregate, apiKeyStreamId(keyId), { kind: 'create', key: data, now: at }, {
      newStream: true,
      metadata: { actor: command.actor, workspaceId: command.workspaceId },
    });
    await this.settle(result.position);
    const doc: ApiKeyDoc = {
      id: keyId,
      workspace_id: data.workspaceId,
      label: data.label,
      status: data.status,
      permissions: data.permissions,
      ip_whitelist: data.ipWhitelist,
      collections: data.collections,
      created_by: data.createdBy,
      created_at: at,
      updated_at: at,
      expires_at: data.expiresAt,
      secret_verifier: data.secretVerifier,
    };
    return {
      ...toApiKeyRecord(doc, null),
      key: `${API_KEY_PREFIX}${keyId}.${secret}`,
      secret,
      // What the caller may keep to recognise the secret later; the store keeps a different, keyed hash.
      hashed_secret: createHash('sha256').update(secret).digest('hex'),
    };
  }

  /** Revocation takes effect before the response: authentication reads the same read model. */
  async revoke(ref: ApiKeyRef): Promise<ApiKeyRecord> {
    const result = await handleCommand(this.deps.events, apiKeyAggregate, apiKeyStreamId(ref.keyId), {
      kind: 'revoke',
      keyId: ref.keyId,
      workspaceId: ref.workspaceId,
      at: this.deps.clock.now().toISOString(),
    }, { metadata: { actor: ref.actor, workspaceId: ref.workspaceId } });
    await this.settle(result.position);
    return this.deps.queries.get(ref);
  }

  private async settle(position: Position | null): Promise<void> {
    await this.deps.projections.waitFor(position, this.deps.readYourWritesTimeoutMs);
  }
}
