export * from './chat-model.port';
export * from './chat-model-errors';
export * from './measured-chat-model';
