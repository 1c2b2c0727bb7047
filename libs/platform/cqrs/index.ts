export * from './aggregate-handler';
export * from './context-definition';
