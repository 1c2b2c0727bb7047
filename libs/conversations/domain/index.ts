export * from './conversation.events';
export * from './conversation.decider';
export * from './conversation.upcasters';
export * from './persistent-map';
