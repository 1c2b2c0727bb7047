export * from './connection.events';
export * from './connection.decider';
export * from './connection.upcasters';
