export * from './conversations.context';
export * from './conversations-service.config';
