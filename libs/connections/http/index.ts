export * from './connections.edge';
export * from './connections.asyncapi';
