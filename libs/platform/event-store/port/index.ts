export * from './event-store.port';
export * from './errors';
export * from './hash-chain';
export * from './hash-chain-verify';
export * from './stream-pages';
