export * from './memory.config';
export * from './memory.records';
export * from './memory.messages';
export * from './memory.integration-events';
export * from './memory-extraction.records';
