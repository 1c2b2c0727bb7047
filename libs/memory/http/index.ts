export * from './memory.edge';
export * from './memory.asyncapi';
