export * from './conversations.edge';
export * from './conversations.asyncapi';
