export * from './conversations.config';
export * from './conversations.fields';
export * from './conversations.records';
export * from './conversations.messages';
export * from './conversations.integration-events';
