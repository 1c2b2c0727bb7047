export * from './embedding-provider.contract';
export * from './models-dir';
export * from './test-embedding-server';
export * from './no-embedding-models';
