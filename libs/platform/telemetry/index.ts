export * from './metrics';
export * from './metric-sources';
export * from './tracing';
export * from './labelled-observer';
