export * from './openai-chat.adapter';
