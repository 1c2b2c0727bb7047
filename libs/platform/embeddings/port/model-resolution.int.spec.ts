import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { modelFiles, resolveModel } from './model-resolution';

const MODEL = 'Org/some-model';

describe('model resolution', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'lore-resolve-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const place = (dir: string, files: readonly string[]): string => {
    for (const file of files) {
      const path = join(dir, MODEL, file);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, '{}');
    }
    return dir;
  };

  it('needs the config, both tokenizer files and the ONNX file of the dtype', () => {
    expect(modelFiles('q8')).toEqual(['config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model_quantized.onnx']);
    expect(modelFiles('fp32')).toContain('onnx/model.onnx');
  });

  it('takes MODELS_DIR first, then the cache, then the hub', () => {
    const modelsDir = place(join(root, 'models'), modelFiles('q8'));
    const cacheDir = place(join(root, 'cache'), modelFiles('q8'));
    const hub = 'https://hub.example/';
    expect(resolveModel({ model: MODEL, dtype: 'q8', modelsDir, cacheDir, remoteHost: hub }).source).toEqual({ kind: 'models_dir', root: modelsDir });
    expect(resolveModel({ model: MODEL, dtype: 'q8', modelsDir: join(root, 'none'), cacheDir, remoteHost: hub }).source).toEqual({
      kind: 'cache',
      root: cacheDir,
    });
    const emptyCache = join(root, 'empty-cache');
    expect(resolveModel({ model: MODEL, dtype: 'q8', modelsDir: join(root, 'none'), cacheDir: emptyCache, remoteHost: hub })).toEqual({
      source: { kind: 'hub', root: emptyCache, remoteHost: hub },
      searched: [join(root, 'none', MODEL), join(emptyCache, MODEL)],
    });
  });

  it('skips a directory that lacks a file of the dtype', () => {
    const modelsDir = place(join(root, 'models'), modelFiles('q8'));
    expect(resolveModel({ model: MODEL, dtype: 'fp32', modelsDir }).source).toBeUndefined();
    expect(resolveModel({ model: MODEL, dtype: 'q8', modelsDir }).source).toEqual({ kind: 'models_dir', root: modelsDir });
  });

  it('finds nothing without a directory with the model and without a hub or cache to download into', () => {
    expect(resolveModel({ model: MODEL, dtype: 'q8' })).toEqual({ source: undefined, searched: [] });
    expect(resolveModel({ model: MODEL, dtype: 'q8', cacheDir: join(root, 'c') }).source).toBeUndefined();
    expect(resolveModel({ model: MODEL, dtype: 'q8', remoteHost: 'https://hub.example/' }).source).toBeUndefined();
  });
});
