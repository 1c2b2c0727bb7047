export * from './transport.port';
export * from './subjects';
