export * from './aggregate-handler';
export * from './context-definition';
export * from './aggregate-state-cache';
export * from './periodic-task';
