export * from './config';
export * from './tokens';
export * from './context-stores';
export * from './context-host';
export * from './platform.module';
export * from './process';
export * from './service-process';
