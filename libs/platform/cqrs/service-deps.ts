import type { Clock } from '@lore/platform/kernel';
import type { EventStore } from '@lore/platform/event-store/port';
import type { DocumentStore } from '@lore/platform/documents/port';
import type { Transport } from '@lore/platform/transport/port';
import type { Keyring } from '@lore/platform/crypto';

/** What every context service is built from; its host chooses the adapters. */
export interface ContextServiceDeps {
  readonly events: EventStore;
  readonly documents: DocumentStore;
  readonly keyring: Keyring;
  readonly transport: Transport;
  readonly clock: Clock;
  /** Bound on the read-your-writes wait before a write answers 503. */
  readonly readYourWritesTimeoutMs: number;
  readonly onProjectionError: (projection: string, error: unknown) => void;
}
