export * from './test-rerank-server';
