import { createHash, randomBytes } from 'node:crypto';
import { fold, forbidden, newId, type Clock, type Position, type ReplyIn, type ValidRequestIn } from '@lore/platform/kernel';
import type { EventStore } from '@lore/platform/event-store/port';
import type { DocumentStore } from '@lore/platform/documents/port';
import { handleCommand, type ReadYourWrites } from '@lore/platform/cqrs';
import type { Keyring } from '@lore/platform/crypto';
import { API_KEY_PREFIX, type ApiKeyGrantor, type KeysMessages } from '@lore/keys/contracts';
import { apiKeyDecider, apiKeyStreamId, upcastApiKeyEvent, type ApiKeyState, type Grantor } from '@lore/keys/domain';
import { API_KEYS, newApiKeyDoc, toApiKeyRecord, type ApiKeyDoc } from './api-keys.read-model';
import type { KeysQueries } from './keys.queries';
import { SECRET_PURPOSE } from './keys.queries';

/** Keys creating keys: how far up a lineage is followed (authentication checks as far). */
const MAX_LINEAGE = 32;

const apiKeyAggregate = { name: 'API key', decider: apiKeyDecider, upcast: upcastApiKeyEvent };

export interface KeysCommandDeps {
  readonly events: EventStore;
  readonly documents: DocumentStore;
  readonly keyring: Keyring;
  readonly readYourWrites: ReadYourWrites;
  readonly queries: KeysQueries;
  readonly clock: Clock;
}

export class KeysCommands {
  constructor(private readonly deps: KeysCommandDeps) {}

  async create(command: ValidRequestIn<KeysMessages, 'create'>): Promise<ReplyIn<KeysMessages, 'create'>> {
    const now = this.deps.clock.now();
    const keyId = newId('key', now.getTime());
    const secret = randomBytes(32).toString('base64url');
    const grantor = await this.grantor(command.grantor, command.workspaceId);
    if (grantor.kind === 'cascade') throw new Error('a cascade cannot create keys');
    const result = await handleCommand(
      this.deps.events,
      apiKeyAggregate,
      apiKeyStreamId(keyId),
      {
        kind: 'create',
        request: {
          keyId,
          workspaceId: command.workspaceId,
          label: command.label,
          status: command.status,
          secretVerifier: this.deps.keyring.verifier(SECRET_PURPOSE, secret),
          expiresAt: command.expiresAt,
          permissions: command.permissions,
          ipWhitelist: command.ipWhitelist,
          collections: command.collections,
        },
        grantor,
        now: now.toISOString(),
      },
      { newStream: true, metadata: { actor: command.actor, workspaceId: command.workspaceId } },
    );
    await this.deps.readYourWrites.settle(result.position);
    if (result.state.status === 'absent') throw new Error('creation left no key');
    return {
      ...toApiKeyRecord(newApiKeyDoc(result.state.key), null),
      key: `${API_KEY_PREFIX}${keyId}.${secret}`,
      secret,
      // What the caller may keep to recognise the secret later; the store keeps a different, keyed hash.
      hashed_secret: createHash('sha256').update(secret).digest('hex'),
    };
  }

  /**
   * Revocation takes effect before the response (authentication reads the same read model)
   * and reaches every key the revoked one created, and theirs. Authentication also refuses
   * a key whose creator is revoked, so a crash halfway through the cascade opens nothing; a
   * repeated revoke completes it. Once a cascade is recorded complete, a repeat walks nothing.
   */
  async revoke(command: ValidRequestIn<KeysMessages, 'revoke'>): Promise<ReplyIn<KeysMessages, 'revoke'>> {
    const metadata = { actor: command.actor, workspaceId: command.workspaceId };
    const at = this.deps.clock.now().toISOString();
    const grantor = await this.grantor(command.grantor, command.workspaceId);
    const first = await handleCommand(this.deps.events, apiKeyAggregate, apiKeyStreamId(command.keyId), {
      kind: 'revoke',
      keyId: command.keyId,
      workspaceId: command.workspaceId,
      grantor,
      at,
    }, { metadata });
    // Revoked before, with every key below it: the answer is the key as it stands.
    if (first.state.status === 'revoked' && first.state.cascaded) return this.deps.queries.get(command);
    // Children are found in the read model once it shows this revocation: a child created
    // concurrently is then either listed below or projected as revoked (its creator is).
    await this.deps.readYourWrites.settle(first.position);
    let last: Position | null = first.position;
    let below = 0;
    const parents = [command.keyId];
    for (let parent = parents.shift(); parent !== undefined; parent = parents.shift()) {
      const children = await this.deps.documents.collection<ApiKeyDoc>(API_KEYS).find({ filter: { parent_key_id: parent } });
      for (const child of children.items) {
        below++;
        parents.push(child.id);
        const result = await handleCommand(this.deps.events, apiKeyAggregate, apiKeyStreamId(child.id), {
          kind: 'revoke',
          keyId: child.id,
          workspaceId: command.workspaceId,
          grantor: { kind: 'cascade', parentKeyId: parent },
          at,
        }, { metadata, retries: 3 });
        last = result.position ?? last;
      }
    }
    if (below > 0) {
      // Recorded (once), so that a repeat need not walk them again; a key with none below it has nothing to walk.
      const cascaded = await handleCommand(this.deps.events, apiKeyAggregate, apiKeyStreamId(command.keyId), { kind: 'finish-cascade', keyId: command.keyId, workspaceId: command.workspaceId, at }, { metadata, retries: 3 });
      last = cascaded.position ?? last;
    }
    await this.deps.readYourWrites.settle(last);
    return this.deps.queries.get(command);
  }

  /** The grantor's grants and lineage come from the event log, never from the request. */
  private async grantor(grantor: ApiKeyGrantor, workspaceId: string): Promise<Grantor> {
    if (grantor.kind === 'user') return grantor;
    const state = await this.keyState(grantor.keyId);
    if (state.status !== 'active' || state.key.workspaceId !== workspaceId) throw forbidden('The API key acting here is not active in this workspace');
    const ancestors: string[] = [];
    for (let parent = state.key.parentKeyId; parent !== null && ancestors.length < MAX_LINEAGE; ) {
      ancestors.push(parent);
      const above = await this.keyState(parent);
      parent = above.status === 'absent' ? null : above.key.parentKeyId;
    }
    return { kind: 'api_key', key: state.key, ancestors };
  }

  private async keyState(keyId: string): Promise<ApiKeyState> {
    return fold(apiKeyDecider, (await this.deps.events.readStream(apiKeyStreamId(keyId))).map(upcastApiKeyEvent));
  }
}
