export * from './e2e-client';
export * from './auth.suite';
export * from './api-keys.suite';
export * from './memories.suite';
export * from './errors.suite';
export * from './knowledge.suite';
export * from './memory-search.suite';
export * from './large-content.suite';
