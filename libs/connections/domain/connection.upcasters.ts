import type { RecordedEvent } from '@lore/platform/kernel';
import { ConnectionEvent } from './connection.events';
import { CredentialEvent } from './credential.events';
import { ConnectSessionEvent } from './connect-session.events';

/** Version 1 is the only version so far, so this validates; a changed shape's conversion goes here. */
export function upcastConnectionEvent(recorded: RecordedEvent): ConnectionEvent {
  return ConnectionEvent.parse({ type: recorded.type, data: recorded.data });
}

export function upcastCredentialEvent(recorded: RecordedEvent): CredentialEvent {
  return CredentialEvent.parse({ type: recorded.type, data: recorded.data });
}

export function upcastConnectSessionEvent(recorded: RecordedEvent): ConnectSessionEvent {
  return ConnectSessionEvent.parse({ type: recorded.type, data: recorded.data });
}
