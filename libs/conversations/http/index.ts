export * from './conversations.edge';
