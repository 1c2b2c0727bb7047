import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

export type LocalDtype = 'q8' | 'fp32';

/** The ONNX file transformers.js loads for a dtype (transformers.js naming, under `onnx/`). */
export const ONNX_FILE: Readonly<Record<LocalDtype, string>> = {
  q8: 'onnx/model_quantized.onnx',
  fp32: 'onnx/model.onnx',
};

/** Every file loading a feature-extraction model reads. */
export function modelFiles(dtype: LocalDtype): string[] {
  return ['config.json', 'tokenizer.json', 'tokenizer_config.json', ONNX_FILE[dtype]];
}

/**
 * Where the model is loaded from: a directory laid out as `<root>/<model id>/<files>` (the
 * transformers.js layout, also that of its file cache), or the hub, downloading into the cache.
 */
export type ModelSource =
  | { readonly kind: 'models_dir'; readonly root: string }
  | { readonly kind: 'cache'; readonly root: string }
  | { readonly kind: 'hub'; readonly root: string; readonly remoteHost: string };

export interface ModelLocations {
  readonly model: string;
  readonly dtype: LocalDtype;
  /** MODELS_DIR: a read-only directory of models, checked first. */
  readonly modelsDir?: string | undefined;
  /** `<DATA_DIR>/models`: the download cache, checked second and written by downloads. */
  readonly cacheDir?: string | undefined;
  /** The hub to download from when neither has the model; undefined: never download. */
  readonly remoteHost?: string | undefined;
}

export interface ModelResolution {
  /** Undefined: nothing local and downloading is off (or there is no cache to download into). */
  readonly source: ModelSource | undefined;
  /** The model directories looked at, for the error message. */
  readonly searched: readonly string[];
}

export const DEFAULT_REMOTE_HOST = 'https://huggingface.co/';

/**
 * MODELS_DIR, then the cache under DATA_DIR, then the hub (ARCHITECTURE §5). A directory counts
 * only when it holds every file the dtype needs, so a half-filled folder is skipped rather than
 * failing later; the hub fills in whatever the cache lacks.
 */
export function resolveModel(locations: ModelLocations): ModelResolution {
  const searched: string[] = [];
  const complete = (root: string): boolean => {
    const dir = join(root, locations.model);
    searched.push(dir);
    return modelFiles(locations.dtype).every((file) => isFile(join(dir, file)));
  };
  if (locations.modelsDir !== undefined && complete(resolve(locations.modelsDir))) {
    return { source: { kind: 'models_dir', root: resolve(locations.modelsDir) }, searched };
  }
  if (locations.cacheDir !== undefined && complete(resolve(locations.cacheDir))) {
    return { source: { kind: 'cache', root: resolve(locations.cacheDir) }, searched };
  }
  if (locations.cacheDir !== undefined && locations.remoteHost !== undefined) {
    return { source: { kind: 'hub', root: resolve(locations.cacheDir), remoteHost: locations.remoteHost }, searched };
  }
  return { source: undefined, searched };
}

function isFile(path: string): boolean {
  try {
    return existsSync(path) && statSync(path).isFile();
  } catch {
    return false;
  }
}
