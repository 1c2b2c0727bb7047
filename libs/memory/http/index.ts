export * from './memory.routes';
