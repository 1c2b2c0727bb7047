import { failedChecks, newId, type Clock, type EventMetadata, type ReplyOf, type ValidRequestOf } from '@lore/platform/kernel';
import type { EventStore } from '@lore/platform/event-store/port';
import type { DocumentStore } from '@lore/platform/documents/port';
import { handleCommand, readAggregateState, type ReadYourWrites } from '@lore/platform/cqrs';
import type { ConnectionMessages } from '@lore/connections/contracts';
import { connectionDecider, connectionStreamId, ownedConnection, upcastConnectionEvent, type ConnectionCommand, type LiveCredential } from '@lore/connections/domain';
import type { ConnectionValidationDeps } from './validation/connection-validator';
import { checkConnection, entryOf, VALIDATION_FAILED, type CheckRequest } from './connection-checks';
import type { CredentialVault } from './credential-vault';
import { CREDENTIAL_ERASURE } from './credential-erasure.reactor';
import { readConnection } from './connection.queries';
import { mergePatch } from './merge-patch';

export const connectionAggregate = { name: 'connection', decider: connectionDecider, upcast: upcastConnectionEvent };

type Request<K extends keyof ConnectionMessages> = ValidRequestOf<ConnectionMessages[K]>;
type Reply<K extends keyof ConnectionMessages> = ReplyOf<ConnectionMessages[K]>;

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

  async create(c: Request<'create'>): Promise<Reply<'create'>> {
    const entry = entryOf(c.integration);
    if (c.credentials !== undefined && c.credentialId !== undefined) throw failedChecks(VALIDATION_FAILED, ['credentials: give either credentials or credential_id, not both']);
    const metadata = metadataOf(c);
    const reused = c.credentialId === undefined ? null : await this.reusable(c, c.credentialId);
    const { method } = await checkConnection(entry, { integrationType: c.integrationType, authMethodId: c.authMethodId, config: c.config ?? {}, credentials: c.credentials, existing: reused }, this.deps);

    const connectionId = newId('conn', this.deps.clock.now().getTime());
    let credentialId: string | null = null;
    if (reused !== null) {
      credentialId = reused.credentialId;
      await this.deps.vault.attach(c, credentialId, connectionId, metadata);
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
  async update(c: Request<'update'>): Promise<Reply<'update'>> {
    const metadata = metadataOf(c);
    const current = ownedConnection(await readAggregateState(this.deps.events, connectionAggregate, connectionStreamId(c.connectionId)), c);
    const entry = entryOf(current.integration);
    const config = c.config === undefined ? undefined : mergePatch(current.config, c.config);
    const rotating = c.credentials !== undefined || (c.credentialId !== undefined && c.credentialId !== current.credentialId) || (c.authMethodId !== undefined && c.authMethodId !== current.authMethodId);
    if (c.credentials !== undefined && c.credentialId !== undefined) throw failedChecks(VALIDATION_FAILED, ['credentials: give either credentials or credential_id, not both']);

    let credential: { credentialId: string | null; authMethodId: string } | undefined;
    if (config !== undefined || rotating) {
      const reused = c.credentialId !== undefined && c.credentialId !== current.credentialId ? await this.reusable(c, c.credentialId) : null;
      const checked = { config: config ?? current.config };
      let check: CheckRequest;
      if (c.credentials !== undefined) check = { ...checked, authMethodId: c.authMethodId ?? current.authMethodId, credentials: c.credentials };
      else if (reused !== null) check = { ...checked, authMethodId: c.authMethodId, existing: reused };
      // Another method without new credentials: checked as none given, so each required field is named.
      else if (rotating) check = { ...checked, authMethodId: c.authMethodId, credentials: {} };
      else check = { ...checked, authMethodId: current.authMethodId, existing: current.credentialId === null ? null : (await this.deps.vault.open(c, current.credentialId)).credential };
      const { method } = await checkConnection(entry, check, this.deps);
      if (rotating) credential = await this.newCredential(c, entry.id, method, c.credentials, reused, metadata);
    }

    const at = this.now();
    const commands: ConnectionCommand[] = [];
    if (c.label !== undefined || config !== undefined || credential !== undefined) {
      commands.push({ kind: 'update', workspaceId: c.workspaceId, userId: c.userId, ...(c.label === undefined ? {} : { label: c.label }), ...(config === undefined ? {} : { config }), ...(credential === undefined ? {} : { credential }), at });
    }
    if (c.status !== undefined) commands.push({ kind: 'set-status', workspaceId: c.workspaceId, userId: c.userId, to: c.status, at });
    let position = null;
    try {
      for (const command of commands) position = (await handleCommand(this.deps.events, connectionAggregate, connectionStreamId(c.connectionId), command, { metadata })).position ?? position;
    } catch (error) {
      // The connection refused it (a test running, deleted meanwhile): the new credential is nobody's.
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

  /** Answered once the credential is shredded, when this connection was the last to use it. */
  async delete(c: Request<'delete'>): Promise<Reply<'delete'>> {
    const metadata = metadataOf(c);
    const result = await handleCommand(this.deps.events, connectionAggregate, connectionStreamId(c.connectionId), { kind: 'delete', workspaceId: c.workspaceId, userId: c.userId, at: this.now() }, { retries: 20, metadata });
    const credentialId = result.state.status === 'deleted' ? result.state.credentialId : null;
    let credentialErased = false;
    if (credentialId !== null) {
      // A repeated delete lets go again (idempotent): it completes what a crash interrupted.
      const released = await this.deps.vault.detach(credentialId, c.connectionId, metadata);
      credentialErased = released.erased;
      if (released.erased) await this.deps.readYourWrites.settleReactor(CREDENTIAL_ERASURE, released.position ?? (await this.lastPositionOf(`credential-${credentialId}`)));
    }
    await this.deps.readYourWrites.settle(result.position);
    return { connectionId: c.connectionId, credentialErased };
  }

  /** A credential the caller may reuse: its own, still stored; a failed check otherwise. */
  private async reusable(owner: { workspaceId: string; userId: string }, credentialId: string): Promise<LiveCredential> {
    try {
      return (await this.deps.vault.open(owner, credentialId)).credential;
    } catch (error) {
      if (error instanceof Error && 'code' in error && error.code === 'not_found') throw failedChecks(VALIDATION_FAILED, [`credential_id: no stored credential "${credentialId}" of yours`]);
      throw error;
    }
  }

  private async newCredential(
    c: Request<'update'>,
    integration: string,
    method: Parameters<CredentialVault['store']>[1]['method'],
    values: Record<string, unknown> | undefined,
    reused: LiveCredential | null,
    metadata: EventMetadata,
  ): Promise<{ credentialId: string | null; authMethodId: string }> {
    if (reused !== null) {
      await this.deps.vault.attach(c, reused.credentialId, c.connectionId, metadata);
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

function metadataOf(c: { actor: string; workspaceId: string }): EventMetadata {
  return { actor: c.actor, workspaceId: c.workspaceId };
}
