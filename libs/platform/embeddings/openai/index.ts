export * from './openai-embeddings.adapter';
export * from './approximate-tokenizer';
