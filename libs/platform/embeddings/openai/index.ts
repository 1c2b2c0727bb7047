export * from './openai-embeddings.adapter';
export * from './approximate-tokenizer';
export * from './retry-policy';
