import { execFileSync } from 'node:child_process';
import { createReadStream, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { TRICKY_TEXTS, describeWithModels, longText } from '@lore/platform/embeddings/contract';
import { EmbeddingUnavailableError, cosineSimilarity } from '@lore/platform/embeddings/port';
import { DEFAULT_LOCAL_MODEL, LocalEmbeddingProvider } from './local-embeddings.adapter';
import { modelFiles } from '@lore/platform/embeddings/port';

const MODEL = DEFAULT_LOCAL_MODEL;
const maxAbsDiff = (a: ArrayLike<number>, b: ArrayLike<number>): number => {
  let max = 0;
  for (let i = 0; i < a.length; i++) max = Math.max(max, Math.abs((a[i] as number) - (b[i] as number)));
  return max;
};

/**
 * Reference vectors from the bare transformers.js feature-extraction pipeline (mean pooling,
 * normalize, 256 tokens), one text per call, in a separate node process: `pipeline` as an app
 * would use it, and `restored` as PROVENANCE.md describes (tokenizer + model, final [SEP] put back).
 */
function referenceVectors(modelsDir: string, dtype: 'q8' | 'fp32', texts: string[]): { pipeline: number[][]; restored: number[][] } {
  const script = `
    const T = require(${JSON.stringify(require.resolve('@huggingface/transformers'))});
    (async () => {
      T.env.localModelPath = ${JSON.stringify(modelsDir)}; T.env.allowRemoteModels = false;
      const texts = JSON.parse(process.argv[1]);
      const ex = await T.pipeline('feature-extraction', ${JSON.stringify(MODEL)}, { dtype: ${JSON.stringify(dtype)} });
      ex.tokenizer._tokenizerConfig.model_max_length = 256;
      const pipeline = [], restored = [];
      for (const text of texts) {
        pipeline.push((await ex([text], { pooling: 'mean', normalize: true })).tolist()[0]);
        const inp = ex.tokenizer([text], { padding: true, truncation: true, max_length: 256 });
        const L = inp.input_ids.dims[1];
        if (L === 256 && inp.input_ids.data[L - 1] !== 102n) inp.input_ids.data[L - 1] = 102n;
        const { last_hidden_state } = await ex.model(inp);
        restored.push(T.mean_pooling(last_hidden_state, inp.attention_mask).normalize(2, -1).tolist()[0]);
      }
      process.stdout.write(JSON.stringify({ pipeline, restored }));
    })().catch((e) => { console.error(e); process.exit(1); });`;
  return JSON.parse(execFileSync(process.execPath, ['-e', script, JSON.stringify(texts)], { encoding: 'utf8', maxBuffer: 64 << 20 })) as {
    pipeline: number[][];
    restored: number[][];
  };
}

/** A stand-in for the Hugging Face hub: `/<model>/resolve/main/<file>` from a models directory. */
async function startHub(root: string): Promise<{ url: string; served: string[]; server: Server }> {
  const served: string[] = [];
  const server = createServer((req, res) => {
    const match = /^\/(.+?)\/resolve\/main\/(.+)$/.exec(decodeURIComponent(req.url ?? ''));
    const file = match ? join(root, match[1]!, match[2]!) : '';
    if (!match || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404).end('Entry not found');
      return;
    }
    served.push(match[2]!);
    res.writeHead(200, { 'content-length': statSync(file).size, 'content-type': 'application/octet-stream' });
    if (req.method === 'HEAD') res.end();
    else createReadStream(file).pipe(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, served, server };
}

describeWithModels('local embeddings adapter', (modelsDir) => {
  const scratch: string[] = [];
  const tempDir = (): string => {
    const dir = mkdtempSync(join(tmpdir(), 'lore-embeddings-'));
    scratch.push(dir);
    return dir;
  };
  /** A DATA_DIR whose model cache holds the model, as symlinks to MODELS_DIR (nothing copied). */
  const dataDirWithCachedModel = (): string => {
    const dataDir = tempDir();
    for (const file of modelFiles('q8')) {
      const target = join(dataDir, 'models', MODEL, file);
      mkdirSync(dirname(target), { recursive: true });
      symlinkSync(join(modelsDir, MODEL, file), target);
    }
    return dataDir;
  };
  const providers: LocalEmbeddingProvider[] = [];
  const open = (options: ConstructorParameters<typeof LocalEmbeddingProvider>[0]): LocalEmbeddingProvider => {
    const provider = new LocalEmbeddingProvider(options);
    providers.push(provider);
    return provider;
  };
  afterAll(async () => {
    await Promise.all(providers.map((p) => p.close()));
    for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
  });

  describe('vectors', () => {
    const short = ['A cat sleeps on the sofa.', 'Protein folding is predicted by deep learning models.', 'x'];
    const long = longText(400);

    it('equal the bare transformers.js pipeline (mean pooling, normalised, 256 tokens) on short texts, q8 by default', async () => {
      const provider = open({ modelsDir });
      const ours = await provider.embedDocuments([...short, long]);
      const reference = referenceVectors(modelsDir, 'q8', [...short, long]);
      short.forEach((_, i) => expect(maxAbsDiff(ours[i]!, reference.pipeline[i]!)).toBeLessThan(1e-5));
      // A text over 256 tokens: the pipeline drops the final [SEP]; ours puts it back (PROVENANCE.md).
      expect(maxAbsDiff(ours[3]!, reference.restored[3]!)).toBeLessThan(1e-5);
      expect(1 - cosineSimilarity(ours[3]!, reference.pipeline[3]!)).toBeGreaterThan(1e-4);
    });

    it('uses the fp32 file when asked', async () => {
      const fp32 = open({ modelsDir, dtype: 'fp32' });
      const [ours] = await fp32.embedDocuments([short[0]!]);
      const reference = referenceVectors(modelsDir, 'fp32', [short[0]!]);
      expect(maxAbsDiff(ours!, reference.pipeline[0]!)).toBeLessThan(1e-5);
      const [q8] = await open({ modelsDir }).embedDocuments([short[0]!]);
      expect(maxAbsDiff(ours!, q8!)).toBeGreaterThan(1e-4);
      expect(cosineSimilarity(ours!, q8!)).toBeGreaterThan(0.97);
    });
  });

  describe('tokenize', () => {
    it('places every token exactly in the original text', async () => {
      const text = 'Hello, unaffable ΟΔΟΣ [SEP] 中文 naïve 😀x';
      const [tokens] = await open({ modelsDir }).tokenize([text]);
      const spans = Array.from({ length: tokens!.count }, (_, i) => text.slice(tokens!.starts[i], tokens!.ends[i]));
      // hello , una ##ffa ##ble ο ##δ ##ος [SEP] 中 文 naive [UNK]
      expect(spans).toEqual(['Hello', ',', 'una', 'ffa', 'ble', 'Ο', 'Δ', 'ΟΣ', '[SEP]', '中', '文', 'naïve', '😀x']);
    });

    it('locates every token of the tricky texts (none shares its end with the one before), except inside Hangul syllables', async () => {
      const texts = TRICKY_TEXTS.filter((text) => !/[\uac00-\ud7a3]/.test(text));
      const results = await open({ modelsDir }).tokenize(texts);
      const unplaced = results.flatMap((tokens, i) =>
        Array.from({ length: tokens.count }, (_, k) => k).filter((k) => k > 0 && tokens.ends[k] === tokens.ends[k - 1]).map((k) => `${texts[i]} #${k}`),
      );
      expect(unplaced).toEqual([]);
    });

    it('reads 256 tokens like sentence-transformers: 254 of the text', () => {
      expect(open({ modelsDir }).info).toMatchObject({ maxInputTokens: 254, dimensions: 384, tokenizer: 'exact', provider: 'local' });
    });
  });

  describe('batching', () => {
    it('pads batches inside the worker when inferenceBatchSize > 1, masking the padding', async () => {
      const texts = ['short', 'A much longer text that forces the short one to be padded in the same model run.'];
      const padded = await open({ modelsDir, dtype: 'fp32', inferenceBatchSize: 8 }).embedDocuments(texts);
      const alone = open({ modelsDir, dtype: 'fp32' });
      for (const [i, text] of texts.entries()) expect(maxAbsDiff(padded[i]!, (await alone.embedDocuments([text]))[0]!)).toBeLessThan(1e-5);
    });

    it('queues concurrent callers into batches of up to batchSize', async () => {
      const provider = open({ modelsDir, batchSize: 8 });
      const texts = Array.from({ length: 20 }, (_, i) => `caller ${i}`);
      const vectors = await Promise.all(texts.map((text) => provider.embedQuery(text)));
      expect(vectors).toHaveLength(20);
      expect(provider.stats()).toMatchObject({ batches: 3, texts: 20 });
    });

    it("serves one caller's document behind at most the two messages in flight of another's large call (fair across ingestion attempts)", async () => {
      const provider = open({ modelsDir, workers: 1 });
      await provider.warmUp();
      const large = provider.embedDocuments(Array.from({ length: 64 }, (_, i) => longText(30) + String(i)));
      while (provider.stats().batches === 0) await new Promise((resolve) => setImmediate(resolve));
      const sentBefore = provider.stats().texts;
      let sentWhenDone = -1;
      await provider.embedDocuments(['a small note']).then(() => (sentWhenDone = provider.stats().texts));
      // Its own text and the large call's in flight (2 messages of 1) went to the worker, and
      // the one sent when a slot freed; not the large call's 64 (nor batches of 16 of them).
      expect(sentWhenDone - sentBefore).toBeLessThanOrEqual(4);
      await large;
    });

    it('runs texts side by side in several single-threaded workers, each text the same bits as one worker gives', async () => {
      const texts = Array.from({ length: 12 }, (_, i) => `${longText(20)} ${i}`);
      const pool = open({ modelsDir, workers: 2 });
      await pool.warmUp();
      const spread = await pool.embedDocuments(texts);
      // The second worker starts once the first has the model and is busy.
      expect(pool.stats().workerStarts).toBe(2);
      const alone = await open({ modelsDir, workers: 1, threads: 1 }).embedDocuments(texts);
      spread.forEach((vector, i) => expect(Array.from(vector)).toEqual(Array.from(alone[i]!)));
    });

    (process.platform === 'linux' ? it : it.skip)('runs the model below the priority of the main thread (nice 5 on Linux)', async () => {
      const niceOf = (task: string): number => Number(readFileSync(`/proc/self/task/${task}/stat`, 'utf8').split(') ')[1]!.split(' ')[16]);
      const before = new Set(readdirSync('/proc/self/task'));
      await open({ modelsDir, workers: 1 }).warmUp();
      const started = readdirSync('/proc/self/task').filter((task) => !before.has(task));
      expect(started.map(niceOf)).toContain(5);
      expect(niceOf(String(process.pid))).toBe(0);
    });

    it('serves a query ahead of documents queued before it', async () => {
      const provider = open({ modelsDir, batchSize: 4 });
      const finished: string[] = [];
      const documents = provider.embedDocuments(Array.from({ length: 12 }, (_, i) => `document ${i}`)).then(() => finished.push('documents'));
      const query = provider.embedQuery('the query').then(() => finished.push('query'));
      await Promise.all([documents, query]);
      expect(finished).toEqual(['query', 'documents']);
    });
  });

  describe('model resolution: MODELS_DIR, then <DATA_DIR>/models, then the hub', () => {
    it('prefers MODELS_DIR over the cache', async () => {
      const provider = open({ modelsDir, dataDir: dataDirWithCachedModel(), download: false });
      await provider.warmUp();
      expect(provider.stats().source).toEqual({ kind: 'models_dir', root: modelsDir });
    });

    it('falls back to the cache under DATA_DIR when MODELS_DIR lacks the model', async () => {
      const dataDir = dataDirWithCachedModel();
      const provider = open({ modelsDir: tempDir(), dataDir, download: false });
      expect(await provider.embedQuery('from the cache')).toHaveLength(384);
      expect(provider.stats().source).toEqual({ kind: 'cache', root: join(dataDir, 'models') });
    });

    it('downloads from the hub into the cache when neither has it, and uses the cache afterwards', async () => {
      const hub = await startHub(modelsDir);
      try {
        const dataDir = tempDir();
        const provider = open({ modelsDir: join(tempDir(), 'missing'), dataDir, remoteHost: hub.url });
        expect(await provider.embedQuery('from the hub')).toHaveLength(384);
        expect(provider.stats().source).toEqual({ kind: 'hub', root: join(dataDir, 'models'), remoteHost: hub.url });
        expect([...new Set(hub.served)].sort()).toEqual(modelFiles('q8').sort());
        for (const file of modelFiles('q8')) expect(existsSync(join(dataDir, 'models', MODEL, file))).toBe(true);

        const again = open({ dataDir, download: false });
        await again.warmUp();
        expect(again.stats().source).toEqual({ kind: 'cache', root: join(dataDir, 'models') });
      } finally {
        await new Promise((resolve) => hub.server.close(resolve));
      }
    });

    it('constructs without a model, and fails embedding with an unavailable error naming MODELS_DIR', async () => {
      const missing = join(tempDir(), 'no-models-here');
      const provider = open({ modelsDir: missing, dataDir: tempDir(), remoteHost: 'http://127.0.0.1:1/' });
      const failure = provider.embedQuery('no model');
      await expect(failure).rejects.toBeInstanceOf(EmbeddingUnavailableError);
      await expect(failure).rejects.toMatchObject({ code: 'unavailable', reason: 'model_not_found', retryable: false });
      const message = ((await failure.catch((e: unknown) => e)) as Error).message;
      expect(message).toContain('MODELS_DIR');
      expect(message).toContain(join(missing, MODEL));
      expect(message).toContain('downloading it from http://127.0.0.1:1/');
      expect(message).toContain('cannot be reached');
      await expect(provider.tokenize(['no model'])).rejects.toMatchObject({ reason: 'model_not_found' });
      // The hub was asked before any thread started, and within retryLoadAfterMs the failure is remembered.
      expect(provider.stats().workerStarts).toBe(0);
    });

    it('ends a call waiting on the hub\'s answer when the provider closes, at once (the probe is aborted), with no worker', async () => {
      // A hub that takes the request and never answers.
      const sockets: Socket[] = [];
      const hub = createNetServer((socket) => sockets.push(socket));
      await new Promise<void>((resolve) => hub.listen(0, '127.0.0.1', resolve));
      try {
        const provider = new LocalEmbeddingProvider({ modelsDir: join(tempDir(), 'none'), dataDir: tempDir(), remoteHost: `http://127.0.0.1:${(hub.address() as AddressInfo).port}/` });
        const waiting = provider.embedQuery('x');
        while (sockets.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
        const started = Date.now();
        await provider.close();
        await expect(waiting).rejects.toMatchObject({ reason: 'closed' });
        expect(Date.now() - started).toBeLessThan(5_000);
        expect(provider.stats().workerStarts).toBe(0);
      } finally {
        for (const socket of sockets) socket.destroy();
        await new Promise((resolve) => hub.close(resolve));
      }
    });

    it('fails at once, without starting a worker, when downloading is off', async () => {
      const provider = open({ modelsDir: join(tempDir(), 'none'), download: false });
      await expect(provider.embedDocuments(['x'])).rejects.toMatchObject({ code: 'unavailable', reason: 'model_not_found' });
      expect(provider.stats().workerStarts).toBe(0);
    });

    it('asks an unreachable hub once per retryLoadAfterMs, calls waiting meanwhile sharing the answer, and starts no worker', async () => {
      // A hub that takes connections and drops them: a network failure on every attempt, counted.
      let attempts = 0;
      const hub = createNetServer((socket) => {
        attempts++;
        socket.destroy();
      });
      await new Promise<void>((resolve) => hub.listen(0, '127.0.0.1', resolve));
      const remoteHost = `http://127.0.0.1:${(hub.address() as AddressInfo).port}/`;
      try {
        const remembering = open({ modelsDir: join(tempDir(), 'none'), dataDir: tempDir(), remoteHost });
        const together = await Promise.allSettled([remembering.embedQuery('a'), remembering.embedDocuments(['b', 'c']), remembering.countTokens(['d'])]);
        expect(together.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
        await expect(remembering.embedQuery('later')).rejects.toMatchObject({ reason: 'model_not_found' });
        expect(attempts).toBe(1);

        const retrying = open({ modelsDir: join(tempDir(), 'none'), dataDir: tempDir(), remoteHost, retryLoadAfterMs: 0 });
        await expect(retrying.embedQuery('x')).rejects.toMatchObject({ reason: 'model_not_found' });
        await expect(retrying.embedQuery('x')).rejects.toMatchObject({ reason: 'model_not_found' });
        expect(attempts).toBe(3);
        expect(remembering.stats().workerStarts + retrying.stats().workerStarts).toBe(0);
      } finally {
        await new Promise((resolve) => hub.close(resolve));
      }
    });
  });

  describe('worker lifecycle', () => {
    it('fails the calls in flight with unavailable when the worker crashes, and restarts it on the next call', async () => {
      const provider = open({ modelsDir, batchSize: 4, workers: 1 });
      await provider.warmUp();
      const inFlight = provider.embedDocuments(Array.from({ length: 40 }, (_, i) => longText(30) + String(i)));
      while (provider.stats().batches === 0) await new Promise((resolve) => setImmediate(resolve));
      provider.crashWorkerForTesting();
      await expect(inFlight).rejects.toMatchObject({ code: 'unavailable', reason: 'worker_crashed', retryable: true });
      expect(await provider.embedQuery('after the crash')).toHaveLength(384);
      expect(provider.stats().workerStarts).toBe(2);
    });

    it('fails pending and later calls once closed', async () => {
      const provider = open({ modelsDir });
      await provider.warmUp();
      const pending = expect(provider.embedDocuments(Array.from({ length: 64 }, (_, i) => `pending ${i}`))).rejects.toMatchObject({
        code: 'unavailable',
        reason: 'closed',
      });
      await provider.close();
      await pending;
      await expect(provider.tokenize(['x'])).rejects.toMatchObject({ reason: 'closed' });
    });
  });
});
