export * from './api-keys.routes';
export * from './api-keys.asyncapi';
