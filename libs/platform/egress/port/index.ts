export * from './egress.port';
export * from './retry-policy';
