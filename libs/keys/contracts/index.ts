export * from './permissions';
export * from './ip-rules';
export * from './keys.http';
export * from './keys.messages';
export * from './keys.integration-events';
