export * from './context-stores';
export * from './context-host';
export * from './service-process';
export * from './embedding-models';
export * from './rerank-providers';
export * from './chat-model';
