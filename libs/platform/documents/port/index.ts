export * from './documents.port';
export * from './cursor';
export * from './query-shape';
export * from './workspace-collection';
export * from './find-without';
