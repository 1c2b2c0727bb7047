import type { Clock, EventMetadata, Position } from '@lore/platform/kernel';
import type { EventStore } from '@lore/platform/event-store/port';
import { handleCommand, readAggregateState } from '@lore/platform/cqrs';
import { SealedFields, type Keyring } from '@lore/platform/crypto';
import type { AuthMethod } from '@lore/connections/contracts';
import { credentialDecider, credentialStreamId, ownedCredential, upcastCredentialEvent, type LiveCredential } from '@lore/connections/domain';

export type CredentialValues = Record<string, unknown>;

const credentialAggregate = { name: 'credential', decider: credentialDecider, upcast: upcastCredentialEvent };

/** Shorter secrets get no hint: 4 characters of 12 would give too much away. */
const HINT_MIN_LENGTH = 16;

interface Owner {
  readonly workspaceId: string;
  readonly userId: string;
}

/**
 * Credentials as their own sealed aggregate: every value sealed with the credential's own
 * data key, which is shredded when the last connection using it lets go. The only place
 * credential values are sealed or opened.
 */
export class CredentialVault {
  private readonly sealed: SealedFields<CredentialValues>;

  constructor(private readonly deps: { readonly events: EventStore; readonly keyring: Keyring; readonly clock: Clock }) {
    this.sealed = new SealedFields<CredentialValues>(deps.keyring, 'Credential');
  }

  /** Stores new credential values for the connection about to be created with them. */
  async store(
    owner: Owner,
    stored: { readonly credentialId: string; readonly integration: string; readonly method: AuthMethod; readonly values: CredentialValues; readonly attachedTo: string },
    metadata: EventMetadata,
  ): Promise<Position | null> {
    // The key is durable before anything sealed with it is appended.
    const secret = this.sealed.seal(stored.credentialId, stored.values, await this.sealed.newKey());
    const result = await handleCommand(
      this.deps.events,
      credentialAggregate,
      credentialStreamId(stored.credentialId),
      {
        kind: 'store',
        credential: {
          credentialId: stored.credentialId,
          workspaceId: owner.workspaceId,
          userId: owner.userId,
          integration: stored.integration,
          authMethodId: stored.method.id,
          secret,
          ...describeValues(stored.values, stored.method),
          attachedTo: stored.attachedTo,
        },
        at: this.now(),
      },
      { newStream: true, metadata },
    );
    return result.position;
  }

  /** Another connection of the owner reuses the credential; not found for anyone else or once erased. */
  async attach(owner: Owner, credentialId: string, connectionId: string, metadata: EventMetadata): Promise<LiveCredential> {
    const result = await handleCommand(this.deps.events, credentialAggregate, credentialStreamId(credentialId), { kind: 'attach', ...owner, connectionId, at: this.now() }, { retries: 5, metadata });
    return ownedCredential(result.state, owner);
  }

  /** The connection lets go; the last one erases it (the erasure reactor then shreds its key). Idempotent. */
  async detach(credentialId: string, connectionId: string, metadata: EventMetadata): Promise<{ position: Position | null; erased: boolean }> {
    const result = await handleCommand(this.deps.events, credentialAggregate, credentialStreamId(credentialId), { kind: 'detach', connectionId, at: this.now() }, { retries: 20, metadata });
    // Absent: its stream is already deleted, the erasure's last step (a concurrent release got there first).
    return { position: result.position, erased: result.state.status !== 'live' };
  }

  /** A credential with its opened values, for its owner only. */
  async open(owner: Owner, credentialId: string): Promise<{ readonly credential: LiveCredential; readonly values: CredentialValues }> {
    const credential = ownedCredential(await readAggregateState(this.deps.events, credentialAggregate, credentialStreamId(credentialId)), owner);
    return { credential, values: await this.sealed.open(credentialId, credential.secret) };
  }

  /** Stores refreshed values, decided on the version they refreshed: a concurrent refresh of it is a conflict. */
  async refresh(credential: LiveCredential, values: CredentialValues, method: AuthMethod, metadata: EventMetadata): Promise<Position | null> {
    const secret = this.sealed.seal(credential.credentialId, values, await this.sealed.keyOf(credential.secret));
    const result = await handleCommand(
      this.deps.events,
      credentialAggregate,
      credentialStreamId(credential.credentialId),
      { kind: 'refresh', sealed: { secret, ...describeValues(values, method) }, ofVersion: credential.version, at: this.now() },
      // An attach or detach meanwhile is no reason to lose fresh tokens; another refresh of the version is (409).
      { retries: 5, metadata },
    );
    return result.position;
  }

  private now(): string {
    return this.deps.clock.now().toISOString();
  }
}

/** What may be said of values in the clear: the fields that hold one, and the last 4 characters of a long main secret. */
export function describeValues(values: CredentialValues, method: AuthMethod): { fieldsSet: string[]; hint: string | null } {
  const fieldsSet = Object.keys(values)
    .filter((name) => values[name] !== undefined && values[name] !== null && values[name] !== '')
    .sort();
  // A password's last characters are part of what a person chose (and reuses): no hint for basic.
  const main = method.type === 'basic' ? undefined : method.secret_fields.map((name) => values[name]).find((value): value is string => typeof value === 'string');
  return { fieldsSet, hint: main !== undefined && main.length >= HINT_MIN_LENGTH ? `…${main.slice(-4)}` : null };
}
