import { envOptional } from '@lore/platform/kernel';
import type { LocalDtype } from '@lore/platform/embeddings/port';

/** How a local embedding provider is set up: the model, where its files are, its threads. */
export interface LocalEmbeddingOptions {
  /** Hugging Face model id in the transformers.js layout (ONNX under `onnx/`). */
  readonly model?: string;
  /** `q8` (int8, default: ~2x faster, SciFact nDCG@10 .656 vs .660) or `fp32`. */
  readonly dtype?: LocalDtype;
  /** MODELS_DIR: checked first; holds `<model id>/…`. */
  readonly modelsDir?: string | undefined;
  /** DATA_DIR: `<dataDir>/models` is checked second, and downloads go there. */
  readonly dataDir?: string | undefined;
  /** Download from the hub when neither directory has the model (default true). */
  readonly download?: boolean;
  /** The hub (default https://huggingface.co/; HF_ENDPOINT in `localEmbeddingOptionsFromEnv`). */
  readonly remoteHost?: string | undefined;
  /**
   * Most texts per message to the worker (default: `inferenceBatchSize`, so 1). The worker runs
   * one message after another, so a caller's texts wait for the messages in flight: with 16
   * per message, a small content's one chunk waited behind up to 32 chunks of another tenant's
   * large content; with 1, behind 2. Throughput is the same (the worker runs texts one at a
   * time anyway; 10-14 texts/s both ways here under load).
   */
  readonly batchSize?: number;
  /** Texts per model run inside the worker (default 1; see the worker source for why). */
  readonly inferenceBatchSize?: number;
  /**
   * Worker threads, each with its own copy of the model (~90 MB), running texts side by side
   * (default: one per core, at most 4; 1 when `threads` is set). Several single-threaded runs
   * beat one run spread over every core for texts this short: onnxruntime's threads spin
   * between runs and split a 256-token run into pieces too small to pay for the hand-offs
   * (on two cores: 15 ms of CPU a text instead of 23-31, 2-4x the texts a second). A text's
   * vector is the same bits whichever worker embeds it.
   */
  readonly workers?: number | undefined;
  /** onnxruntime intra-op threads of each worker (default 1 with several workers, else onnxruntime's choice: every core). */
  readonly threads?: number | undefined;
  /** Required for models not in the built-in list. */
  readonly dimensions?: number;
  /** Tokens the model reads, special tokens included; required for models not in the built-in list. */
  readonly maxSequenceLength?: number;
  /** After a failed load, calls fail fast with the same error for this long, then loading is retried (default 30 s). */
  readonly retryLoadAfterMs?: number;
}

/** Options from MODELS_DIR, DATA_DIR (default ./data) and HF_ENDPOINT. */
export function localEmbeddingOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): LocalEmbeddingOptions {
  const value = (name: string): string | undefined => envOptional.parse(env[name]);
  return { modelsDir: value('MODELS_DIR'), dataDir: value('DATA_DIR') ?? './data', remoteHost: value('HF_ENDPOINT') };
}
