import { reactingTo, type Clock, type RecordedEvent } from '@lore/platform/kernel';
import type { EventStore } from '@lore/platform/event-store/port';
import type { DocumentStore } from '@lore/platform/documents/port';
import { periodicTask, readAggregateState, type ContextLog } from '@lore/platform/cqrs';
import { connectionStreamId, credentialStreamId, upcastCredentialEvent } from '@lore/connections/domain';
import { CREDENTIALS, type CredentialDoc } from './connection.read-models';
import type { CredentialVault } from './credential-vault';
import { connectionAggregate } from './connection.commands';

const EVERY_MS = 10 * 60_000;
const FIRST_AFTER_MS = 30_000;

/**
 * A credential is stored just before the connection that uses it is created (or updated to
 * use it). A crash between the two leaves it attached to a connection that never came to use
 * it; this sweep lets go for that connection, and the last letting go shreds it. It runs once
 * shortly after start (at most 30 s, sooner with a shorter grace) and then every ten minutes.
 * Each release is caused by the event that attached the credential to that connection (its
 * correlation id names the request that was cut off).
 */
export function credentialSweep(deps: {
  readonly events: EventStore;
  readonly documents: DocumentStore;
  readonly vault: CredentialVault;
  readonly clock: Clock;
  readonly log: ContextLog;
  /** Older than this, a credential attached to a connection that does not use it was left behind by a crash, not by a request in flight. */
  readonly config: { readonly sweepGraceMs: number };
}) {
  async function sweep(): Promise<number> {
    const before = new Date(deps.clock.now().getTime() - deps.config.sweepGraceMs).toISOString();
    const { items } = await deps.documents.collection<CredentialDoc>(CREDENTIALS).find({ filter: { attached_at: { $lt: before } }, limit: 1000 });
    let released = 0;
    for (const credential of items) {
      for (const connectionId of credential.attached_to) {
        // One credential that cannot be released must not keep the others attached: it is logged and the sweep goes on.
        try {
          const state = await readAggregateState(deps.events, connectionAggregate, connectionStreamId(connectionId));
          const uses = state.status !== 'absent' && state.status !== 'deleted' && state.credentialId === credential.id;
          if (uses) continue;
          const cause = await attachingEvent(deps.events, credential.id, connectionId);
          await reactingTo(cause, 'credential-sweep', () => deps.vault.detach(credential.id, connectionId, { workspaceId: credential.workspace_id }));
          released++;
        } catch (error) {
          deps.log.error({ credentialId: credential.id, connectionId, workspaceId: credential.workspace_id, err: error instanceof Error ? error.message : String(error) }, 'credential sweep could not release a credential; the next sweep tries again');
        }
      }
    }
    return released;
  }

  return {
    sweep,
    ...periodicTask({ name: 'credential sweep', firstAfterMs: Math.min(FIRST_AFTER_MS, deps.config.sweepGraceMs), everyMs: EVERY_MS, log: deps.log, run: sweep }),
  };
}

/** The last event that attached the credential to the connection (a credential's stream is short). */
async function attachingEvent(events: EventStore, credentialId: string, connectionId: string): Promise<RecordedEvent | undefined> {
  const attaching = (await events.readStream(credentialStreamId(credentialId))).filter((recorded) => {
    const event = upcastCredentialEvent(recorded);
    return (event.type === 'connections.CredentialStored' && event.data.attachedTo === connectionId) || (event.type === 'connections.CredentialAttached' && event.data.connectionId === connectionId);
  });
  return attaching.at(-1);
}
