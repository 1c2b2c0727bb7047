export * from './aggregate-handler';
export * from './message-routes';
