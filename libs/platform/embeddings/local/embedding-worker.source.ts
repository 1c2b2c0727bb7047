import { LOWER_WORKER_PRIORITY_SOURCE } from '@lore/platform/embeddings/port';

/**
 * The worker thread's code, as plain CommonJS in a string started with `new Worker(source,
 * { eval: true })`. A string because the same code must run from the esbuild bundle in dist/
 * (where no file sits next to the adapter) and under jest/@swc (where TypeScript is compiled
 * in memory): neither needs a build step or a file path. It `require`s @huggingface/transformers
 * from the path the main thread resolved (`workerData.transformersPath`), so it finds the
 * package wherever the app's node_modules are.
 *
 * Protocol (main → worker): `{ type: 'embed' | 'tokenize' | 'count', id, texts }`, `{ type: 'crash' }`
 * (tests). Worker → main: `{ type: 'ready' }` or `{ type: 'load-failed', message }` once,
 * then `{ type: 'result', id, result }` or `{ type: 'error', id, message }` per request.
 * Embedding requests run one at a time (the model uses every core it is given); tokenization
 * and counting run as soon as they arrive.
 *
 * What it computes:
 * - embed: sentence-transformers semantics — tokens truncated to `maxSequenceLength` (256 for
 *   all-MiniLM-L6-v2) with the final [SEP] put back (transformers.js's truncation cuts it off:
 *   PROVENANCE.md), mean pooling over the attention mask, L2 normalisation. Texts are run
 *   `inferenceBatchSize` at a time (default 1: with the int8 model, activations are quantised
 *   per tensor, so a padded batch changes every row's result; one text at a time makes a
 *   text's vector independent of its neighbours, and measured as fast here).
 * - tokenize: the model's own tokens, without [CLS]/[SEP], with their offsets in the original
 *   text: the text is normalised char by char with the tokenizer's own normalizer (keeping a
 *   map back to the original offsets) and each WordPiece token is found in it; see
 *   `Tokenization` in the port for the guarantee and the fallback.
 * - count: each text's number of tokens, as tokenize counts them (the same WordPiece tokens),
 *   without placing them in the text.
 */
export const EMBEDDING_WORKER_SOURCE = String.raw`
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const config = workerData;
${LOWER_WORKER_PRIORITY_SOURCE}
const state = { tokenizer: null, model: null, trailingId: 0, normalizer: null, prefix: '##', unk: '[UNK]', added: new Set(), normCache: new Map() };

const messageOf = (error) => (error && error.message ? String(error.message) : String(error));
const loading = load();
loading.then(
  () => parentPort.postMessage({ type: 'ready' }),
  (error) => parentPort.postMessage({ type: 'load-failed', message: messageOf(error) }),
);

async function load() {
  const T = require(config.transformersPath);
  const env = T.env;
  env.logLevel = 40;
  if (config.source.kind === 'hub') {
    env.allowLocalModels = false;
    env.allowRemoteModels = true;
    env.useFSCache = true;
    env.cacheDir = config.source.root;
    env.remoteHost = config.source.remoteHost;
  } else {
    env.allowLocalModels = true;
    env.localModelPath = config.source.root;
    env.allowRemoteModels = false;
    env.useFSCache = false;
  }
  const tokenizer = await T.AutoTokenizer.from_pretrained(config.model);
  const options = { dtype: config.dtype, device: 'cpu' };
  if (config.threads) options.session_options = { intraOpNumThreads: config.threads, interOpNumThreads: 1 };
  const model = await T.AutoModel.from_pretrained(config.model, options);
  const specials = tokenizer.encode('');
  if (specials.length !== 2) {
    throw new Error('unsupported tokenizer: it adds ' + specials.length + ' special tokens to a text, expected 2 ([CLS] and [SEP])');
  }
  const hidden = model.config && model.config.hidden_size;
  if (hidden && hidden !== config.dimensions) {
    throw new Error('the model produces ' + hidden + '-dimensional vectors, but ' + config.dimensions + ' are configured');
  }
  const inner = tokenizer._tokenizer;
  state.tokenizer = tokenizer;
  state.model = model;
  state.trailingId = BigInt(specials[1]);
  state.normalizer = inner && inner.normalizer ? inner.normalizer : null;
  state.prefix = (inner && inner.model && inner.model.config && inner.model.config.continuing_subword_prefix) || '##';
  state.unk = tokenizer.unk_token || '[UNK]';
  state.added = new Set(inner && inner.added_tokens_map ? inner.added_tokens_map.keys() : []);
}

// ---- embedding ------------------------------------------------------------------------------

async function embed(texts) {
  await loading;
  const dim = config.dimensions;
  const out = new Float32Array(texts.length * dim);
  const order = texts.map((_, i) => i);
  const group = Math.max(1, config.inferenceBatchSize);
  if (group > 1) order.sort((a, b) => texts[a].length - texts[b].length || a - b);
  for (let g = 0; g < order.length; g += group) {
    const rows = order.slice(g, g + group);
    const inputs = state.tokenizer(rows.map((i) => texts[i]), { padding: true, truncation: true, max_length: config.maxSequenceLength });
    restoreTrailingToken(inputs);
    const outputs = await state.model(inputs);
    const hidden = outputs.last_hidden_state || outputs.token_embeddings || Object.values(outputs)[0];
    meanPoolNormalize(hidden, inputs.attention_mask, rows, out, dim);
  }
  return out;
}

// transformers.js truncates the ids with their special tokens to max_length, dropping the final
// [SEP]; sentence-transformers keeps it. A full-length row whose last id is not [SEP] was cut.
function restoreTrailingToken(inputs) {
  const ids = inputs.input_ids;
  const mask = inputs.attention_mask;
  const rows = ids.dims[0];
  const len = ids.dims[1];
  if (len < config.maxSequenceLength) return;
  for (let r = 0; r < rows; r++) {
    const last = r * len + len - 1;
    if (mask.data[last] !== 0n && ids.data[last] !== state.trailingId) ids.data[last] = state.trailingId;
  }
}

function meanPoolNormalize(hidden, mask, rows, out, dim) {
  const [n, len, width] = hidden.dims;
  if (width !== dim) throw new Error('the model produced ' + width + '-dimensional vectors, expected ' + dim);
  const h = hidden.data;
  const m = mask.data;
  for (let r = 0; r < n; r++) {
    const o = rows[r] * dim;
    let count = 0;
    for (let t = 0; t < len; t++) {
      if (m[r * len + t] === 0n) continue;
      count++;
      const base = (r * len + t) * width;
      for (let d = 0; d < dim; d++) out[o + d] += h[base + d];
    }
    let sum = 0;
    for (let d = 0; d < dim; d++) {
      const v = out[o + d] / Math.max(count, 1);
      out[o + d] = v;
      sum += v * v;
    }
    const scale = sum > 0 ? 1 / Math.sqrt(sum) : 0;
    for (let d = 0; d < dim; d++) out[o + d] *= scale;
  }
}

// ---- tokenization with offsets --------------------------------------------------------------

const PUNCT = /[\p{P}\u0021-\u002F\u003A-\u0040\u005B-\u0060\u007B-\u007E]/u;
const SPACE = /\s/u;
// The one context-dependent lower-casing (final sigma): compare both spellings as one.
const fold = (s) => (s.indexOf('\u03c2') >= 0 ? s.replace(/\u03c2/g, '\u03c3') : s);

function normalizeChar(ch) {
  let out = state.normCache.get(ch);
  if (out === undefined) {
    out = fold(state.normalizer ? state.normalizer(ch) : ch);
    if (state.normCache.size < 100000) state.normCache.set(ch, out);
  }
  return out;
}

// The normalised text, and for each of its UTF-16 units the original offset of the character
// it came from (orig), and for each original offset where its character's output starts (at).
function normalizeWithMap(text) {
  const parts = [];
  let orig = new Uint32Array(text.length + 16);
  const at = new Uint32Array(text.length + 1);
  let j = 0;
  for (let i = 0; i < text.length; ) {
    const width = text.codePointAt(i) > 0xffff ? 2 : 1;
    const out = normalizeChar(text.slice(i, i + width));
    at[i] = j;
    if (width === 2) at[i + 1] = j;
    parts.push(out);
    if (j + out.length > orig.length) {
      const grown = new Uint32Array(Math.max(orig.length * 2, j + out.length));
      grown.set(orig);
      orig = grown;
    }
    orig.fill(i, j, j + out.length);
    j += out.length;
    i += width;
  }
  at[text.length] = j;
  return { norm: parts.join(''), orig, at };
}

function tokenizeWithOffsets(text) {
  const tokens = state.tokenizer.tokenize(text);
  const n = tokens.length;
  const starts = new Uint32Array(n);
  const ends = new Uint32Array(n);
  if (n === 0) return { count: 0, starts, ends };
  const { norm, orig, at } = normalizeWithMap(text);
  const origAt = (p) => (p < norm.length ? orig[p] : text.length);
  const normStarts = new Uint32Array(n); // where each placed token starts in the normalised text
  let p = 0;
  let lastEnd = 0;
  let t = 0;
  const degenerate = (from, to, finalEnd) => {
    for (let i = from; i < to; i++) {
      starts[i] = lastEnd;
      ends[i] = lastEnd;
    }
    if (to > from) ends[to - 1] = finalEnd;
  };
  while (t < n) {
    while (p < norm.length && SPACE.test(norm[p])) p++;
    const span = locate(tokens[t], text, norm, p, origAt);
    if (span) {
      let start = origAt(p);
      let end = span.q >= norm.length ? text.length : orig[span.q];
      if (span.q < norm.length && at[end] !== span.q) {
        // The token ends inside the normalised form of one character. If only spaces follow
        // (the normalizer spaces out CJK characters), it ends with that character; otherwise
        // (a Hangul syllable split into jamo) it cannot be cut there and ends where the
        // previous token did.
        const next = end + (text.codePointAt(end) > 0xffff ? 2 : 1);
        end = norm.slice(span.q, at[next]).trim() === '' ? next : lastEnd;
      }
      if (start > end) start = end;
      normStarts[t] = p;
      starts[t] = start;
      ends[t] = end;
      lastEnd = end;
      p = span.q;
      t++;
      continue;
    }
    // Not found. Tokenization starts afresh at whitespace, so the whitespace-delimited segment
    // around this point holds exactly its own tokens: count them, let the unplaced ones share
    // one span ending with the segment, and go on after it.
    if (p >= norm.length) {
      degenerate(t, n, text.length);
      break;
    }
    const o = orig[p];
    let segStart = o;
    while (segStart > 0 && !SPACE.test(text[segStart - 1])) segStart--;
    let w = o + 1;
    while (w < text.length && !SPACE.test(text[w])) w++;
    let first = t;
    while (first > 0 && normStarts[first - 1] >= at[segStart]) first--;
    const segment = state.tokenizer.tokenize(text.slice(segStart, w));
    const m = first + segment.length;
    let same = m >= t && m <= n;
    for (let i = 0; same && i < segment.length; i++) same = tokens[first + i] === segment[i];
    if (!same) {
      degenerate(t, n, text.length);
      break;
    }
    degenerate(t, m, w);
    if (m > t) lastEnd = w;
    t = m;
    p = at[w];
  }
  return { count: n, starts, ends };
}

// Where token starts at normalised offset p, as { q: its normalised end }, or null.
function locate(token, text, norm, p, origAt) {
  if (p >= norm.length) return null;
  if (state.added.has(token)) {
    const o = origAt(p);
    if (text.startsWith(token, o)) {
      let q = p;
      while (q < norm.length && origAt(q) < o + token.length) q++;
      return { q };
    }
    if (token !== state.unk) return null;
  }
  if (token === state.unk) {
    // WordPiece gives one [UNK] for a whole word: a punctuation character, or a run of
    // characters that are neither whitespace nor punctuation (CJK characters are spaced out
    // by the normalizer, so each is a word of its own).
    const first = String.fromCodePoint(norm.codePointAt(p));
    let q = p + first.length;
    if (!PUNCT.test(first)) {
      while (q < norm.length) {
        const c = String.fromCodePoint(norm.codePointAt(q));
        if (SPACE.test(c) || PUNCT.test(c)) break;
        q += c.length;
      }
    }
    return { q };
  }
  let piece = token;
  if (piece.length > state.prefix.length && piece.startsWith(state.prefix)) piece = piece.slice(state.prefix.length);
  piece = fold(piece);
  return norm.startsWith(piece, p) ? { q: p + piece.length } : null;
}

// ---- messages -------------------------------------------------------------------------------

async function respond(id, work, transferOf) {
  try {
    const result = await work();
    parentPort.postMessage({ type: 'result', id, result }, transferOf(result));
  } catch (error) {
    parentPort.postMessage({ type: 'error', id, message: messageOf(error) });
  }
}

let embedding = Promise.resolve();
parentPort.on('message', (message) => {
  switch (message.type) {
    case 'embed':
      embedding = embedding.then(() => respond(message.id, () => embed(message.texts), (v) => [v.buffer]));
      break;
    case 'tokenize':
      respond(
        message.id,
        async () => {
          await loading;
          return message.texts.map(tokenizeWithOffsets);
        },
        (results) => results.flatMap((r) => [r.starts.buffer, r.ends.buffer]),
      );
      break;
    case 'count':
      respond(
        message.id,
        async () => {
          await loading;
          return message.texts.map((text) => state.tokenizer.tokenize(text).length);
        },
        () => [],
      );
      break;
    case 'crash':
      process.exit(70);
      break;
    case 'shutdown':
      // Ends the thread between inference runs: terminating it during one aborts the whole
      // process inside onnxruntime's native code ("terminate called after throwing Napi::Error").
      embedding.then(() => loading).finally(() => process.exit(0));
      break;
    default:
      break;
  }
});
`;
