export * from './connections.context';
