export * from './http-rerank.adapter';
export * from './rerank-wire-formats';
