export * from './access';
export * from './collection.events';
export * from './collection.decider';
export * from './content-text';
export * from './content.events';
export * from './content.decider';
export * from './knowledge.upcasters';
export * from './chunk-ids';
