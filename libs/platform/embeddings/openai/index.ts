export * from './openai-embeddings.adapter';
export * from './approximate-tokenizer';
// The retry policy moved to the kernel (the rerank adapters use it too); re-exported for existing importers.
export { DEFAULT_RETRY_POLICY, backoffDelayMs, isRetryableStatus, nextDelayMs, retryAfterMs, type RetryPolicy } from '@lore/platform/kernel';
