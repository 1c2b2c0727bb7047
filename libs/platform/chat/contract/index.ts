export * from './test-chat-server';
