export * from './memory.limits';
export * from './memory.http';
export * from './memory.messages';
export * from './memory.integration-events';
