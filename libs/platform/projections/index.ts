export * from './projection';
export * from './projection-runner';
export * from './event-processors';
export * from './batch-context';
export * from './parked-event';
export * from './event-applier';
export * from './parked-streams';
export * from './integration-events.publisher';
