export * from './keys.records';
export * from './keys.messages';
export * from './keys.integration-events';
