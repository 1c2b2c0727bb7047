export * from './e2e-client';
export * from './auth.suite';
export * from './api-keys.suite';
export * from './memories.suite';
export * from './errors.suite';
