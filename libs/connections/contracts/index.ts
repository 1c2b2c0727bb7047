export * from './integrations.records';
export * from './integrations.messages';
export * from './connections.config';
