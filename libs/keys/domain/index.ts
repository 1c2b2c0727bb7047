export * from './api-key.events';
export * from './api-key.decider';
export * from './api-key.upcasters';
