export * from './servers';
export * from './decider-spec';
