export * from './memory.events';
export * from './memory.decider';
export * from './memory.upcasters';
