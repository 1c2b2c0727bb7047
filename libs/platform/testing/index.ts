export * from './servers';
export * from './decider-spec';
export * from './recorded-event';
