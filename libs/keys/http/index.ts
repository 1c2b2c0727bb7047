export * from './keys.edge';
export * from './api-keys.asyncapi';
