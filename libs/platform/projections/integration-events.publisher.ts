import type { RecordedEvent } from '@lore/platform/kernel';
import { publishIntegrationEvents, type IntegrationEventEnvelope, type Transport } from '@lore/platform/transport/port';
import type { Reactor } from './projection';

export interface IntegrationEventsPublisher<E extends IntegrationEventEnvelope> {
  /** The reactor's checkpoint name (`<context>.integration-events.v1`). */
  readonly name: string;
  readonly streamPrefix: string;
  /**
   * What downstream systems see of a domain event: ids and types, never sealed content; `null`
   * for a domain event that is no news to them (a lease renewed, a part of a text appended).
   */
  readonly integrationEvent: (recorded: RecordedEvent) => E | null;
}

/**
 * Publishes a context's integration events for downstream subscribers, at least once: a
 * reactor with a checkpoint, kept in the integration-event feed where the process has one
 * (`checkpointInFeed`), so a restart resumes where publishing stopped and a crash that loses
 * feed rows publishes them again.
 */
export function integrationEventsPublisher<E extends IntegrationEventEnvelope>(transport: Transport, publisher: IntegrationEventsPublisher<E>): Reactor {
  return {
    name: publisher.name,
    checkpointInFeed: true,
    streamPrefixes: [publisher.streamPrefix],
    async react(events) {
      await publishIntegrationEvents(transport, events.map(publisher.integrationEvent).filter((event) => event !== null));
    },
  };
}
