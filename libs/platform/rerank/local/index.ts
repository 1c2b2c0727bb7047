export * from './local-cross-encoder.adapter';
