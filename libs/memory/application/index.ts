export * from './memory.context';
