export * from './integrations.records';
export * from './integrations.messages';
export * from './connections.config';
export * from './connection.records';
export * from './connection.messages';
export * from './connections.integration-events';
export * from './webhook.records';
export * from './webhook.messages';
