export * from './knowledge.context';
