export * from './rerank.port';
export * from './rerank-step';
