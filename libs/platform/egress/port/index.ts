export * from './egress.port';
