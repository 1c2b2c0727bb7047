import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppError } from '@lore/platform/kernel';
import { describeWithModels } from '@lore/platform/embeddings/contract';
import { LocalCrossEncoderProvider } from './local-cross-encoder.adapter';

/**
 * The local reranker's whole path — transformers.js's tokenizer on (query, passage) pairs, the
 * sequence-classification model in onnxruntime, one logit per pair — on a hand-built ONNX graph
 * (fixture/make_overlap_cross_encoder.py: the logit counts the passage's word pieces that occur
 * in the query) with the BERT tokenizer of the shared embedding model. No learned weights.
 */
describeWithModels('local cross-encoder', (modelsDir) => {
  const MODEL = 'test/overlap-cross-encoder';
  let root: string;
  let provider: LocalCrossEncoderProvider;

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'lore-cross-encoder-'));
    const dir = join(root, MODEL);
    mkdirSync(join(dir, 'onnx'), { recursive: true });
    for (const file of ['tokenizer.json', 'tokenizer_config.json', 'special_tokens_map.json']) copyFileSync(join(modelsDir, 'Xenova/all-MiniLM-L6-v2', file), join(dir, file));
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ model_type: 'bert', architectures: ['BertForSequenceClassification'], id2label: { 0: 'LABEL_0' }, label2id: { LABEL_0: 0 } }));
    copyFileSync(join(__dirname, 'fixture/overlap-cross-encoder.onnx'), join(dir, 'onnx/model.onnx'));
    provider = new LocalCrossEncoderProvider({ model: MODEL, dtype: 'fp32', modelsDir: root, batchSize: 2 });
  });
  afterAll(async () => {
    await provider.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('scores each (query, passage) pair with the model and returns them best first', async () => {
    const documents = ['nothing in common here', 'the cat sat', 'a cat sat on the mat', 'mat'];
    const scored = await provider.rerank('cat sat on mat', documents);
    // Word pieces of each passage found in the query: 0, 2 (cat, sat), 4 (cat sat on mat), 1 (mat).
    expect(scored).toEqual([
      { index: 2, score: 4 },
      { index: 1, score: 2 },
      { index: 3, score: 1 },
      { index: 0, score: 0 },
    ]);
  });

  it('answers 503 naming MODELS_DIR when the model is not there, without starting a worker', async () => {
    const missing = new LocalCrossEncoderProvider({ model: 'nobody/absent-reranker', modelsDir: root });
    const error = await missing.rerank('q', ['d']).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'unavailable', reason: 'model_not_found' });
    expect((error as Error).message).toContain('MODELS_DIR');
    await missing.close();
  });
});
