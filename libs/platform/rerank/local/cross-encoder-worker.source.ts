import { LOWER_WORKER_PRIORITY_SOURCE } from '@lore/platform/embeddings/port';

/**
 * The local cross-encoder's worker thread, as plain CommonJS in a string started with
 * `new Worker(source, { eval: true })`, for the reason the embedding worker is one
 * (embedding-worker.source.ts): it runs from the esbuild bundle and under jest alike.
 *
 * The model is a transformers.js sequence-classification model (the layout of
 * Xenova/ms-marco-MiniLM-L-6-v2: config.json, tokenizer.json, tokenizer_config.json,
 * onnx/model[_quantized].onnx) with one output label: its logit for a (query, passage) pair is
 * the relevance score, as sentence-transformers' CrossEncoder returns it for such models.
 *
 * Protocol: main → worker `{ id, query, documents }`; worker → main `{ type: 'ready' }` or
 * `{ type: 'load-failed', message }` once, then `{ type: 'result', id, scores }` or
 * `{ type: 'error', id, message }`. Pairs run `batchSize` at a time, one request after another.
 */
export const CROSS_ENCODER_WORKER_SOURCE = String.raw`
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const config = workerData;
${LOWER_WORKER_PRIORITY_SOURCE}
const messageOf = (error) => (error && error.message ? String(error.message) : String(error));
const state = { tokenizer: null, model: null };
const loading = load();
loading.then(
  () => parentPort.postMessage({ type: 'ready' }),
  (error) => parentPort.postMessage({ type: 'load-failed', message: messageOf(error) }),
);

async function load() {
  const T = require(config.transformersPath);
  T.env.logLevel = 40;
  T.env.allowLocalModels = true;
  T.env.localModelPath = config.root;
  T.env.allowRemoteModels = false;
  T.env.useFSCache = false;
  state.tokenizer = await T.AutoTokenizer.from_pretrained(config.model);
  const options = { dtype: config.dtype, device: 'cpu' };
  if (config.threads) options.session_options = { intraOpNumThreads: config.threads, interOpNumThreads: 1 };
  state.model = await T.AutoModelForSequenceClassification.from_pretrained(config.model, options);
}

async function score(query, documents) {
  await loading;
  const scores = new Array(documents.length);
  for (let start = 0; start < documents.length; start += config.batchSize) {
    const passages = documents.slice(start, start + config.batchSize);
    const inputs = state.tokenizer(passages.map(() => query), { text_pair: passages, padding: true, truncation: true, max_length: config.maxSequenceLength });
    const { logits } = await state.model(inputs);
    const labels = logits.dims[1];
    if (labels !== 1) throw new Error('the model has ' + labels + ' output labels; a reranker has one (its relevance logit)');
    for (let i = 0; i < passages.length; i++) scores[start + i] = Number(logits.data[i]);
  }
  return scores;
}

const queue = [];
let running = false;
parentPort.on('message', (message) => {
  queue.push(message);
  if (!running) void drain();
});
async function drain() {
  running = true;
  while (queue.length > 0) {
    const { id, query, documents } = queue.shift();
    try {
      parentPort.postMessage({ type: 'result', id, scores: await score(query, documents) });
    } catch (error) {
      parentPort.postMessage({ type: 'error', id, message: messageOf(error) });
    }
  }
  running = false;
}
`;
