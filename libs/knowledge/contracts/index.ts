export * from './knowledge.config';
export * from './knowledge.fields';
export * from './knowledge.records';
export * from './knowledge.messages';
export * from './text-parts';
export * from './knowledge.integration-events';
