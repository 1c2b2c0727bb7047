import { closedPort } from '@lore/platform/testing';
import { bagOfWordsVector, startTestEmbeddingServer } from '@lore/platform/embeddings/contract';
import type { TestEmbeddingServer } from '@lore/platform/embeddings/contract';
import { EmbeddingUnavailableError, cachedQueries, cosineSimilarity } from '@lore/platform/embeddings/port';
import { OpenAICompatibleEmbeddingProvider } from './openai-embeddings.adapter';
import type { OpenAIEmbeddingOptions } from './openai-embeddings.adapter';

const KEY = 'sk-test-0123456789abcdef';
const FAST_RETRIES = { baseDelayMs: 5, maxDelayMs: 20 };

describe('OpenAI-compatible embeddings adapter', () => {
  let server: TestEmbeddingServer;
  const providers: OpenAICompatibleEmbeddingProvider[] = [];
  const open = (options: Partial<OpenAIEmbeddingOptions> = {}): OpenAICompatibleEmbeddingProvider => {
    const provider = new OpenAICompatibleEmbeddingProvider({
      baseUrl: server.baseUrl,
      apiKey: KEY,
      model: 'bag-of-words',
      dimensions: 64,
      retry: FAST_RETRIES,
      ...options,
    });
    providers.push(provider);
    return provider;
  };
  const failureOf = async (promise: Promise<unknown>): Promise<Error> => {
    try {
      await promise;
    } catch (error) {
      return error as Error;
    }
    throw new Error('expected a rejection');
  };

  beforeEach(async () => {
    server = await startTestEmbeddingServer({ dimensions: 64, apiKey: KEY, maxInputWords: 100 });
  });
  afterEach(async () => {
    await Promise.all(providers.splice(0).map((p) => p.close()));
    await server.close();
  });

  describe('requests', () => {
    it('posts to <baseUrl>/embeddings with a bearer key, the model and float encoding', async () => {
      const [vector] = await open().embedDocuments(['hello world']);
      expect(server.requests).toHaveLength(1);
      const [request] = server.requests;
      expect(request!.method).toBe('POST');
      expect(request!.url).toBe('/v1/embeddings');
      expect(request!.headers.authorization).toBe(`Bearer ${KEY}`);
      expect(request!.body).toEqual({ model: 'bag-of-words', input: ['hello world'], encoding_format: 'float' });
      // The server's vectors are not normalised; the adapter's are.
      expect(cosineSimilarity(vector!, bagOfWordsVector('hello world', 64))).toBeCloseTo(1, 6);
    });

    it('batches concurrent callers into requests of up to maxInputsPerRequest', async () => {
      const provider = open({ maxInputsPerRequest: 8, maxConcurrentRequests: 1 });
      const vectors = await Promise.all(Array.from({ length: 20 }, (_, i) => provider.embedQuery(`text number ${i}`)));
      expect(vectors).toHaveLength(20);
      expect(server.requests.map((r) => (r.body?.input as string[]).length)).toEqual([8, 8, 4]);
      vectors.forEach((vector, i) => expect(cosineSimilarity(vector, bagOfWordsVector(`text number ${i}`, 64))).toBeCloseTo(1, 6));
    });

    it('requests shorter vectors with `dimensions` when requestDimensions is set', async () => {
      const [vector] = await open({ dimensions: 16, requestDimensions: true }).embedDocuments(['shorter vectors']);
      expect(server.requests[0]!.body?.dimensions).toBe(16);
      expect(vector).toHaveLength(16);
    });

    it('speaks Azure OpenAI: api-key header and api-version query', async () => {
      await open({ baseUrl: `${server.baseUrl}/deployments/my-embedder`, azure: { apiVersion: '2024-10-21' } }).embedQuery('azure');
      const [request] = server.requests;
      expect(request!.url).toBe('/v1/deployments/my-embedder/embeddings?api-version=2024-10-21');
      expect(request!.headers['api-key']).toBe(KEY);
      expect(request!.headers.authorization).toBeUndefined();
    });

    it('decodes base64 embeddings to the same vectors as floats', async () => {
      const [base64] = await open({ encodingFormat: 'base64' }).embedDocuments(['base64 please']);
      const [floats] = await open().embedDocuments(['base64 please']);
      expect(server.requests[0]!.body?.encoding_format).toBe('base64');
      expect(Array.from(base64!)).toEqual(Array.from(floats!));
    });

    it('sends an empty text as a space, which OpenAI accepts', async () => {
      const [vector] = await open().embedDocuments(['']);
      expect(server.requests[0]!.body?.input).toEqual([' ']);
      expect(vector).toHaveLength(64);
    });

    it('cuts texts to maxInputTokens estimated tokens before sending', async () => {
      const words = Array.from({ length: 500 }, (_, i) => `w${i}`).join(' ');
      await open({ maxInputTokens: 60 }).embedDocuments([words]);
      const sent = (server.requests[0]!.body?.input as string[])[0]!;
      expect(words.startsWith(sent)).toBe(true);
      expect(sent.split(' ').length).toBeLessThanOrEqual(60);
    });
  });

  describe('retries', () => {
    it('waits as long as Retry-After says after a 429, then succeeds', async () => {
      server.script({ status: 429, headers: { 'retry-after': '1' } });
      const started = Date.now();
      expect(await open().embedQuery('patience')).toHaveLength(64);
      expect(Date.now() - started).toBeGreaterThanOrEqual(950);
      expect(server.requests).toHaveLength(2);
    });

    it('honours retry-after-ms (Azure) too', async () => {
      server.script({ status: 429, headers: { 'retry-after-ms': '300' } });
      const started = Date.now();
      await open({ retry: { ...FAST_RETRIES, baseDelayMs: 1 } }).embedQuery('azure patience');
      expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    });

    it('retries 5xx with backoff and succeeds', async () => {
      server.script({ status: 500 }, { status: 502 }, { status: 503 });
      expect(await open().embedQuery('eventually')).toHaveLength(64);
      expect(server.requests).toHaveLength(4);
    });

    it('gives up after maxRetries with unavailable (server_error)', async () => {
      server.script({ status: 500 }, { status: 500 }, { status: 500 }, { status: 500 });
      const error = await failureOf(open({ retry: { ...FAST_RETRIES, maxRetries: 2 } }).embedQuery('never'));
      expect(error).toBeInstanceOf(EmbeddingUnavailableError);
      expect(error).toMatchObject({ code: 'unavailable', reason: 'server_error', retryable: true });
      expect(error.message).toContain('500');
      expect(server.requests).toHaveLength(3);
    });

    it('gives up on 429 with unavailable (rate_limited), at once when Retry-After exceeds maxRetryAfterMs', async () => {
      server.script({ status: 429, headers: { 'retry-after': '3600' } });
      const error = await failureOf(open().embedQuery('an hour'));
      expect(error).toMatchObject({ code: 'unavailable', reason: 'rate_limited' });
      expect(server.requests).toHaveLength(1);
    });

    it('times out a slow answer and retries it', async () => {
      // Far slower than the timeout: on a CI host busy enough to fire a 150 ms timer 450 ms late
      // (a major GC in a full jest worker), a 600 ms answer arrived first and was taken. The
      // server clears the pending delay when it closes.
      server.script({ delayMs: 10_000 });
      expect(await open({ timeoutMs: 150 }).embedQuery('slow once')).toHaveLength(64);
      expect(server.requests).toHaveLength(2);
    });

    it('fails with unavailable (timeout) when every attempt hangs', async () => {
      server.script({ hang: true }, { hang: true });
      const error = await failureOf(open({ timeoutMs: 100, retry: { ...FAST_RETRIES, maxRetries: 1 } }).embedQuery('hangs'));
      expect(error).toMatchObject({ code: 'unavailable', reason: 'timeout' });
      expect(error.message).toContain('100 ms');
    });

    it('retries a dropped connection', async () => {
      server.script({ drop: true });
      expect(await open().embedQuery('dropped once')).toHaveLength(64);
      expect(server.requests).toHaveLength(2);
    });

    it('fails with unavailable (network) when the server cannot be reached', async () => {
      const port = await closedPort();
      const error = await failureOf(open({ baseUrl: `http://127.0.0.1:${port}/v1`, retry: { ...FAST_RETRIES, maxRetries: 1 } }).embedQuery('nobody'));
      expect(error).toMatchObject({ code: 'unavailable', reason: 'network' });
      expect(error.message).toContain('ECONNREFUSED');
    });
  });

  describe('refusals', () => {
    it('maps 400 to validation with the provider message, without retrying', async () => {
      server.script({ status: 400, body: { error: { message: "This model's maximum context length is 8192 tokens." } } });
      const error = await failureOf(open().embedQuery('refused'));
      expect(error).toMatchObject({ code: 'validation' });
      expect(error.message).toContain("This model's maximum context length is 8192 tokens.");
      expect(server.requests).toHaveLength(1);
    });

    it('maps 401 to internal and never shows the API key, even when the server echoes it', async () => {
      const wrong = 'sk-wrong-secret-key-42';
      const error = await failureOf(open({ apiKey: wrong }).embedQuery('who am I'));
      expect(error).toMatchObject({ code: 'internal' });
      expect(error.message).toContain('401');
      expect(error.message).toContain('Check the API key');
      expect(error.message).not.toContain(wrong);
      expect(JSON.stringify(error)).not.toContain(wrong);
      expect(server.requests).toHaveLength(1);
    });

    it('maps 404 to internal, pointing at the URL and model', async () => {
      const error = await failureOf(open({ baseUrl: `${server.baseUrl}/nowhere/x` }).embedQuery('lost'));
      server.script({ status: 404, body: { error: 'model "nomic" not found, try pulling it first' } });
      const ollama = await failureOf(open().embedQuery('pull me'));
      expect(error).toMatchObject({ code: 'internal' });
      expect(ollama.message).toContain('model "nomic" not found, try pulling it first');
      expect(ollama.message).toContain('Check the base URL and the model name');
    });

    it('rejects vectors of another length than configured as internal', async () => {
      const error = await failureOf(open({ dimensions: 384 }).embedQuery('wrong size'));
      expect(error).toMatchObject({ code: 'internal' });
      expect(error.message).toContain('64-dimensional');
    });

    it('rejects a malformed answer as internal', async () => {
      server.script({ status: 200, body: { object: 'list', results: [] } });
      expect(await failureOf(open().embedQuery('malformed'))).toMatchObject({ code: 'internal' });
    });
  });

  describe('lifecycle', () => {
    it('does not cache a failed query embedding', async () => {
      server.script({ status: 500 });
      const cached = cachedQueries(open({ retry: { maxRetries: 0 } }), { size: 10 });
      await expect(cached.embedQuery('flaky')).rejects.toMatchObject({ code: 'unavailable' });
      expect(await cached.embedQuery('flaky')).toHaveLength(64);
      expect(cached.cacheStats()).toMatchObject({ hits: 0, misses: 2, size: 1 });
    });

    it('aborts calls in flight when closed', async () => {
      server.script({ hang: true });
      const provider = open();
      const pending = provider.embedQuery('in flight');
      while (server.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      const started = Date.now();
      await provider.close();
      await expect(pending).rejects.toMatchObject({ code: 'unavailable', reason: 'closed' });
      expect(Date.now() - started).toBeLessThan(1000);
    });
  });
});
