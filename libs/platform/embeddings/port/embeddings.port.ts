/**
 * Text embeddings (ARCHITECTURE §2 platform/embeddings): a local ONNX model in a worker thread
 * and any OpenAI-compatible `/v1/embeddings` server are the two adapters; both pass
 * `describeEmbeddingProviderContract`.
 *
 * Vectors are L2-normalised `Float32Array`s of `info.dimensions` numbers, so the dot product is
 * the cosine similarity (`distance: 'cosine'`). A provider never rejects a text for being too
 * long: it embeds the text's first `info.maxInputTokens` tokens, as `tokenize` counts them.
 *
 * Failures are AppErrors: `EmbeddingUnavailableError` (code `unavailable`, 503) when the model
 * or the server cannot be reached right now — the local model missing (the message names
 * `MODELS_DIR`), a crashed worker, a provider that keeps answering 429/5xx or timing out;
 * `validation` or `internal` when the provider refuses the request for a reason that retrying
 * does not change. Constructing a provider never fails for lack of a model: only `embed*` and
 * `tokenize` do, so everything that needs no embedding keeps working.
 */

export interface EmbeddingProviderInfo {
  /** Which adapter: `local` or `openai-compatible`. Recorded with a collection's vectors. */
  readonly provider: string;
  /** Model id, e.g. `Xenova/all-MiniLM-L6-v2` or `text-embedding-3-small`. */
  readonly model: string;
  /** Length of every vector. */
  readonly dimensions: number;
  readonly distance: 'cosine';
  /**
   * The most tokens of a text, as `tokenize` counts them, that are embedded; the rest is cut
   * off. Special tokens the model adds itself are not included: all-MiniLM-L6-v2 reads 256
   * tokens like sentence-transformers, that is [CLS], 254 text tokens and [SEP], so 254 here.
   * A chunker that keeps every chunk at or under this number embeds every chunk whole.
   */
  readonly maxInputTokens: number;
  /**
   * `exact`: `tokenize` is the model's own tokenizer, as the model sees the text.
   * `approximate`: an estimate meant to over-count (the provider's tokenizer is not available
   * here); limits computed from it err on the safe side.
   */
  readonly tokenizer: 'exact' | 'approximate';
}

/**
 * Where the tokens of one text are. Token `i` came from `text.slice(starts[i], ends[i])`
 * (UTF-16 offsets). Both arrays are non-decreasing and `ends[i] >= starts[i]`.
 *
 * The guarantee a splitter builds on (the prefix property): for every `k` in `1..count`,
 * `text.slice(0, ends[k - 1])` has at most `k` tokens. So a recursive splitter can always cut
 * a piece of at most N tokens off the front of a text at `ends[N - 1]`, or at a whitespace
 * before that offset (it prefers a paragraph or sentence break): both adapters' tokenizers
 * never let a token span whitespace, so the piece before a whitespace holds whole tokens only,
 * all among the first N. Then it continues with the remainder. Cutting at any other offset
 * gives no such guarantee (a word cut in two may take more tokens than the whole word).
 *
 * Offsets are exact for the model's tokens. Where a token cannot be placed in the original text
 * (a tokenizer that rewrites text in ways that do not map back char by char), its end repeats
 * the previous token's end — the property still holds, but that cut makes no progress; a
 * splitter then cuts that stretch by characters and re-counts with `tokenize` (rare: never for
 * WordPiece tokenizers on ordinary text). A splitter that must never exceed the limit re-counts
 * its final chunks with one batched `tokenize` call — cheap — and cuts any chunk over it again.
 */
export interface Tokenization {
  /** Tokens of the text, without the special tokens the model adds. */
  readonly count: number;
  readonly starts: Uint32Array;
  readonly ends: Uint32Array;
}

export interface EmbeddingProvider {
  readonly info: EmbeddingProviderInfo;
  /**
   * One vector per text, in input order; `[]` for `[]`. Texts from concurrent callers are
   * batched together, yet a text's vector does not depend on which other texts share its
   * batch (the contract checks it to 1e-4): re-embedding gives the same vector.
   */
  embedDocuments(texts: readonly string[]): Promise<Float32Array[]>;
  /** The vector of a search query; served ahead of queued documents. */
  embedQuery(text: string): Promise<Float32Array>;
  /** The tokens of each text (see `Tokenization`), in input order; `[]` for `[]`. */
  tokenize(texts: readonly string[]): Promise<Tokenization[]>;
  /**
   * Each text's token count, the same as `tokenize`'s, without the offsets: what a token budget
   * needs (placing every token back in the text costs the local model a third of the work).
   */
  countTokens(texts: readonly string[]): Promise<number[]>;
  /** Stops the provider: pending and later calls fail with `unavailable`. Idempotent. */
  close(): Promise<void>;
}

/** Offset at which a text must be cut so that the piece before it has at most `maxTokens` tokens. */
export function cutOffset(tokens: Tokenization, text: string, maxTokens: number): number {
  if (maxTokens <= 0) return 0;
  if (tokens.count <= maxTokens) return text.length;
  return tokens.ends[maxTokens - 1] ?? text.length;
}
