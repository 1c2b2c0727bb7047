import { isDeepStrictEqual } from 'node:util';
import { AppError, conflict, failedChecks, newId, notFound, type Clock, type EventMetadata, type ReplyIn, type ValidRequestIn } from '@lore/platform/kernel';
import type { EventStore } from '@lore/platform/event-store/port';
import type { DocumentStore } from '@lore/platform/documents/port';
import { handleCommand, readAggregateState, type ReadYourWrites } from '@lore/platform/cqrs';
import type { ConnectionMessages } from '@lore/connections/contracts';
import { connectionDecider, connectionStreamId, credentialStreamId, ownedConnection, upcastConnectionEvent, type ConnectionCommand, type LiveCredential } from '@lore/connections/domain';
import type { ConnectionValidationDeps } from './validation/connection-validator';
import { checkConnection, entryOf, VALIDATION_FAILED, type CheckRequest } from './connection-checks';
import type { CredentialVault } from './credential-vault';
import { CREDENTIAL_ERASURE } from './credential-erasure.reactor';
import { readConnection } from './connection.queries';
import { mergePatch } from './merge-patch';

export const connectionAggregate = { name: 'connection', decider: connectionDecider, upcast: upcastConnectionEvent };

export interface ConnectionCommandDeps {
  readonly events: EventStore;
  readonly documents: DocumentStore;
  readonly vault: CredentialVault;
  readonly readYourWrites: ReadYourWrites;
  readonly clock: Clock;
  /** The client-credentials token request of validation, through the egress port. */
  readonly requestToken?: ConnectionValidationDeps['requestToken'];
}

/** Creating, changing and deleting connections; testing is ConnectionTests'. */
export class ConnectionCommands {
  constructor(private readonly deps: ConnectionCommandDeps) {}

  async create(c: ValidRequestIn<ConnectionMessages, 'create'>): Promise<ReplyIn<ConnectionMessages, 'create'>> {
    const entry = entryOf(c.integration);
    const metadata = metadataOf(c);
    const errors = c.credentials !== undefined && c.credentialId !== undefined ? [BOTH_GIVEN] : [];
    const reuse = c.credentialId === undefined ? null : await this.reusable(c, c.credentialId);
    const reused = reuse !== null && 'credential' in reuse ? reuse.credential : null;
    if (reuse !== null && 'error' in reuse) errors.push(reuse.error);
    const { method } = await checkConnection(
      entry,
      { integrationType: c.integrationType, authMethodId: c.authMethodId, config: c.config ?? {}, credentials: c.credentials, existing: reused, reuseRequested: c.credentialId !== undefined, errors },
      this.deps,
    );

    const connectionId = newId('conn', this.deps.clock.now().getTime());
    let credentialId: string | null = null;
    if (reused !== null) {
      credentialId = reused.credentialId;
      await this.attach(c, credentialId, connectionId, metadata);
    } else if (method.type !== 'none') {
      credentialId = newId('cred', this.deps.clock.now().getTime());
      await this.deps.vault.store(c, { credentialId, integration: entry.id, method, values: c.credentials ?? {}, attachedTo: connectionId }, metadata);
    }
    const result = await handleCommand(
      this.deps.events,
      connectionAggregate,
      connectionStreamId(connectionId),
      {
        kind: 'create',
        connection: {
          connectionId,
          workspaceId: c.workspaceId,
          userId: c.userId,
          createdBy: c.actor,
          integration: entry.id,
          integrationType: entry.integration_type,
          authMethodId: method.id,
          label: c.label,
          config: c.config ?? {},
          credentialId,
        },
        at: this.now(),
      },
      { newStream: true, metadata },
    );
    await this.deps.readYourWrites.settle(result.position);
    return readConnection(this.deps.documents, c, connectionId);
  }

  /**
   * Label, config (a merge patch), credentials and status. Anything that changes what a
   * connection connects with (config, credentials, method) is validated again as a whole.
   * New credentials are a new credential aggregate; the old one is let go (and shredded
   * once no connection uses it).
   */
  async update(c: ValidRequestIn<ConnectionMessages, 'update'>): Promise<ReplyIn<ConnectionMessages, 'update'>> {
    const metadata = metadataOf(c);
    const stream = connectionStreamId(c.connectionId);
    const state = await readAggregateState(this.deps.events, connectionAggregate, stream);
    const current = ownedConnection(state, c);
    const entry = entryOf(current.integration);
    const config = c.config === undefined ? undefined : mergePatch(current.config, c.config);
    const reusing = c.credentialId !== undefined && c.credentialId !== current.credentialId;
    const rotating = c.credentials !== undefined || reusing || (c.authMethodId !== undefined && c.authMethodId !== current.authMethodId);

    let credential: { credentialId: string | null; authMethodId: string } | undefined;
    if (config !== undefined || rotating) {
      const errors = c.credentials !== undefined && c.credentialId !== undefined ? [BOTH_GIVEN] : [];
      const reuse = reusing && c.credentialId !== undefined ? await this.reusable(c, c.credentialId) : null;
      const reused = reuse !== null && 'credential' in reuse ? reuse.credential : null;
      if (reuse !== null && 'error' in reuse) errors.push(reuse.error);
      const base = { config: config ?? current.config, errors };
      let check: CheckRequest;
      if (c.credentials !== undefined) check = { ...base, authMethodId: c.authMethodId ?? current.authMethodId, credentials: c.credentials };
      else if (reusing) check = { ...base, authMethodId: c.authMethodId, existing: reused, reuseRequested: true };
      // Another method without new credentials: checked as none given, so each required field is named.
      else if (rotating) check = { ...base, authMethodId: c.authMethodId, credentials: {} };
      // The same credential with a new configuration: checked together again (a token request included).
      else check = { ...base, authMethodId: current.authMethodId, credentials: current.credentialId === null ? undefined : (await this.deps.vault.open(c, current.credentialId)).values };
      const { method } = await checkConnection(entry, check, this.deps);
      if (rotating) {
        // Decided first on the state just read (being tested: 409), before a credential is sealed
        // and stored: a refused write stores no secret, and costs no append and erasure to undo.
        // The refusal does not depend on which credential; the events are thrown away.
        connectionDecider.decide(updateCommand(c, config, { credentialId: current.credentialId, authMethodId: method.id }, this.now()), state);
        credential = await this.newCredential(c, entry.id, method, c.credentials, reused, metadata);
      }
    }

    const command = updateCommand(c, config, credential, this.now());
    let position;
    try {
      // Decided on what was validated: a concurrent change to what it connects with is a 409, not lost.
      const result = await handleCommand(this.deps.events, connectionAggregate, stream, (state) => {
        const now = ownedConnection(state, c);
        if (now.credentialId !== current.credentialId || now.authMethodId !== current.authMethodId || !isDeepStrictEqual(now.config, current.config)) {
          throw conflict('The connection was changed meanwhile; read it again and retry');
        }
        return command;
      }, { metadata });
      position = result.position;
    } catch (error) {
      // Nothing was appended: the new credential is nobody's.
      if (credential?.credentialId) await this.deps.vault.detach(credential.credentialId, c.connectionId, metadata);
      throw error;
    }
    if (credential !== undefined && current.credentialId !== null && current.credentialId !== credential.credentialId) {
      const released = await this.deps.vault.detach(current.credentialId, c.connectionId, metadata);
      if (released.erased) await this.deps.readYourWrites.settleReactor(CREDENTIAL_ERASURE, released.position);
    }
    await this.deps.readYourWrites.settle(position);
    return readConnection(this.deps.documents, c, c.connectionId);
  }

  /** Answered once the credential is shredded, when this connection was the last to use it; 404 when deleted before. */
  async delete(c: ValidRequestIn<ConnectionMessages, 'delete'>): Promise<ReplyIn<ConnectionMessages, 'delete'>> {
    const metadata = metadataOf(c);
    const result = await handleCommand(this.deps.events, connectionAggregate, connectionStreamId(c.connectionId), { kind: 'delete', workspaceId: c.workspaceId, userId: c.userId, at: this.now() }, { retries: 20, metadata });
    const credentialId = result.state.status === 'deleted' ? result.state.credentialId : null;
    let credentialErased = false;
    if (credentialId !== null) {
      // A repeated delete lets go again (idempotent): it completes what a crash interrupted.
      const released = await this.deps.vault.detach(credentialId, c.connectionId, metadata);
      credentialErased = released.erased;
      if (released.erased) await this.deps.readYourWrites.settleReactor(CREDENTIAL_ERASURE, released.position ?? (await this.lastPositionOf(credentialStreamId(credentialId))));
    }
    // Deleted before: 404 as for every other resource (SPEC is silent; memories, keys and the
    // rest answer so). The credential was let go again above, so a delete that a crash cut
    // short is still completed by the retry that gets this answer.
    if (result.events.length === 0) throw notFound('Connection');
    await this.deps.readYourWrites.settle(result.position);
    return { connectionId: c.connectionId, credentialErased };
  }

  /** A credential the caller may reuse: its own, still stored; else the failed check to list. */
  private async reusable(owner: { workspaceId: string; userId: string }, credentialId: string): Promise<{ credential: LiveCredential } | { error: string }> {
    try {
      return { credential: (await this.deps.vault.open(owner, credentialId)).credential };
    } catch (error) {
      if (error instanceof AppError && error.code === 'not_found') return { error: noSuchCredential(credentialId) };
      throw error;
    }
  }

  /** Erased since it was checked (its last user let go meanwhile): the same failed check. */
  private async attach(owner: { workspaceId: string; userId: string }, credentialId: string, connectionId: string, metadata: EventMetadata): Promise<void> {
    try {
      await this.deps.vault.attach(owner, credentialId, connectionId, metadata);
    } catch (error) {
      if (error instanceof AppError && error.code === 'not_found') throw failedChecks(VALIDATION_FAILED, [noSuchCredential(credentialId)]);
      throw error;
    }
  }

  private async newCredential(
    c: ValidRequestIn<ConnectionMessages, 'update'>,
    integration: string,
    method: Parameters<CredentialVault['store']>[1]['method'],
    values: Record<string, unknown> | undefined,
    reused: LiveCredential | null,
    metadata: EventMetadata,
  ): Promise<{ credentialId: string | null; authMethodId: string }> {
    if (reused !== null) {
      await this.attach(c, reused.credentialId, c.connectionId, metadata);
      return { credentialId: reused.credentialId, authMethodId: method.id };
    }
    if (method.type === 'none') return { credentialId: null, authMethodId: method.id };
    const credentialId = newId('cred', this.deps.clock.now().getTime());
    await this.deps.vault.store(c, { credentialId, integration, method, values: values ?? {}, attachedTo: c.connectionId }, metadata);
    return { credentialId, authMethodId: method.id };
  }

  private async lastPositionOf(streamId: string) {
    return (await this.deps.events.readStream(streamId)).at(-1)?.position ?? null;
  }

  private now(): string {
    return this.deps.clock.now().toISOString();
  }
}

/** One PATCH as the decider takes it. */
function updateCommand(
  c: ValidRequestIn<ConnectionMessages, 'update'>,
  config: Record<string, unknown> | undefined,
  credential: { credentialId: string | null; authMethodId: string } | undefined,
  at: string,
): ConnectionCommand {
  return {
    kind: 'update',
    workspaceId: c.workspaceId,
    userId: c.userId,
    ...(c.label === undefined ? {} : { label: c.label }),
    ...(config === undefined ? {} : { config }),
    ...(credential === undefined ? {} : { credential }),
    ...(c.status === undefined ? {} : { status: c.status }),
    at,
  };
}

const BOTH_GIVEN = 'credentials: give either credentials or credential_id, not both';
const noSuchCredential = (credentialId: string): string => `credential_id: no stored credential "${credentialId}" of yours`;

function metadataOf(c: { actor: string; workspaceId: string }): EventMetadata {
  return { actor: c.actor, workspaceId: c.workspaceId };
}
