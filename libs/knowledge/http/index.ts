export * from './knowledge.edge';
