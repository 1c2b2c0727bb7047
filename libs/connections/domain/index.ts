export * from './connection.events';
export * from './connection.decider';
export * from './credential.events';
export * from './credential.decider';
export * from './connection.upcasters';
export * from './webhook.events';
export * from './webhook.decider';
