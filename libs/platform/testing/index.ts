export * from './servers';
export * from './decider-spec';
export * from './recorded-event';
export * from './projection-spec';
export * from './context-fixture';
export * from './fresh-fixture';
export * from './bundle-options';
export * from './until';
