export * from './aggregate-handler';
export * from './message-routes';
export * from './service-deps';
