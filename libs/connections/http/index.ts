export * from './connections.edge';
