import type { EmbeddingProvider } from './embeddings.port';

/** A map that keeps the `capacity` most recently used keys. */
export class LruMap<K, V> {
  private readonly entries = new Map<K, V>();

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 0) {
      throw new RangeError(`capacity must be a non-negative integer, got ${capacity}`);
    }
  }

  get size(): number {
    return this.entries.size;
  }

  /** The value, without marking it as used. */
  peek(key: K): V | undefined {
    return this.entries.get(key);
  }

  /** The value, marked as most recently used. */
  get(key: K): V | undefined {
    if (!this.entries.has(key)) return undefined;
    const value = this.entries.get(key) as V;
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  set(key: K, value: V): void {
    if (this.capacity === 0) return;
    this.entries.delete(key);
    this.entries.set(key, value);
    while (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next();
      if (oldest.done === true) break;
      this.entries.delete(oldest.value);
    }
  }

  delete(key: K): boolean {
    return this.entries.delete(key);
  }
}

export interface QueryCacheStats {
  readonly hits: number;
  readonly misses: number;
  readonly size: number;
}

export interface CachedEmbeddingProvider extends EmbeddingProvider {
  cacheStats(): QueryCacheStats;
}

/**
 * The same provider with an LRU cache of query embeddings (`size` queries, keyed by the exact
 * text): a repeated search skips the model. Concurrent calls for one query share one embedding;
 * a failure is not cached. Every caller gets its own copy of the vector. Documents and
 * tokenization pass through uncached.
 */
export function cachedQueries(provider: EmbeddingProvider, options: { readonly size: number }): CachedEmbeddingProvider {
  const cache = new LruMap<string, Promise<Float32Array>>(options.size);
  let hits = 0;
  let misses = 0;

  return {
    info: provider.info,
    embedDocuments: (texts) => provider.embedDocuments(texts),
    tokenize: (texts) => provider.tokenize(texts),
    countTokens: (texts) => provider.countTokens(texts),
    close: () => provider.close(),
    cacheStats: () => ({ hits, misses, size: cache.size }),
    async embedQuery(text) {
      let entry = cache.get(text);
      if (entry) {
        hits++;
      } else {
        misses++;
        entry = provider.embedQuery(text);
        const stored = entry;
        cache.set(text, stored);
        stored.catch(() => {
          if (cache.peek(text) === stored) cache.delete(text);
        });
      }
      return new Float32Array(await entry);
    },
  };
}
