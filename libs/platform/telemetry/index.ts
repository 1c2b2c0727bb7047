export * from './metrics';
export * from './metric-sources';
export * from './tracing';
