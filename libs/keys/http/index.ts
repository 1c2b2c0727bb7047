export * from './api-keys.routes';
