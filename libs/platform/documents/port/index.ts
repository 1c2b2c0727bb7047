export * from './documents.port';
export * from './cursor';
