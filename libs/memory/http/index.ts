export * from './memory.routes';
export * from './memory.asyncapi';
