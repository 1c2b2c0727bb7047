export * from './blobs.port';
