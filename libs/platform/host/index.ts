export * from './context-stores';
export * from './context-host';
export * from './service-process';
