import { createNodeEgress } from '@lore/platform/egress/node';
import { AppError } from '@lore/platform/kernel';
import { RerankFailure } from '@lore/platform/rerank/port';
import { startTestRerankServer, type RerankWire, type TestRerankServer } from '@lore/platform/rerank/contract';
import { HttpRerankProvider } from './http-rerank.adapter';

/** Fast retries: the policy's shape is what is tested, not its production waits. */
const QUICK = { baseDelayMs: 5, maxDelayMs: 10 };
const egress = createNodeEgress({ allow: ['127.0.0.1'] });
const DOCS = ['bananas are yellow', 'the red apple fell', 'an apple a day keeps the doctor away'];

async function failureOf(promise: Promise<unknown>): Promise<RerankFailure> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RerankFailure);
  return error as RerankFailure;
}

describe.each<RerankWire>(['cohere', 'jina', 'tei', 'vllm'])('HTTP rerank provider speaking %s', (api) => {
  let server: TestRerankServer;
  let provider: HttpRerankProvider;

  beforeAll(async () => {
    server = await startTestRerankServer(api, { apiKey: 'sk-test' });
    provider = new HttpRerankProvider(egress, { api, baseUrl: server.baseUrl, apiKey: 'sk-test', model: 'test-reranker', timeoutMs: 1_000, retry: QUICK });
  });
  afterAll(async () => {
    await provider.close();
    await server.close();
  });
  beforeEach(() => server.requests.splice(0));

  it('sends the documented request and returns every document scored, best first', async () => {
    const scored = await provider.rerank('red apple', DOCS);
    expect(scored.map((s) => s.index)).toEqual([1, 2, 0]);
    expect(scored[0]?.score).toBeCloseTo(1);
    const [request] = server.requests;
    expect(request?.headers.authorization).toBe('Bearer sk-test');
    const expected = {
      cohere: { path: '/v2/rerank', body: { model: 'test-reranker', query: 'red apple', documents: DOCS, top_n: 3 } },
      jina: { path: '/v1/rerank', body: { model: 'test-reranker', query: 'red apple', documents: DOCS, top_n: 3, return_documents: false } },
      tei: { path: '/rerank', body: { query: 'red apple', texts: DOCS, raw_scores: false, truncate: true } },
      vllm: { path: '/v1/rerank', body: { model: 'test-reranker', query: 'red apple', documents: DOCS, top_n: 3 } },
    }[api];
    expect({ path: request?.path, body: request?.body }).toEqual(expected);
  });

  it("retries a 429 after the server's Retry-After, then answers", async () => {
    server.script({ status: 429, headers: { 'retry-after': '0' } }, { status: 503 });
    const scored = await provider.rerank('apple', DOCS);
    expect(scored).toHaveLength(3);
    expect(server.requests).toHaveLength(3);
  });

  it('gives up on a Retry-After beyond its bound at once, as a 502 naming the rate limit', async () => {
    server.script({ status: 429, headers: { 'retry-after': '3600' } });
    const failure = await failureOf(provider.rerank('apple', DOCS));
    expect(failure).toMatchObject({ code: 'bad_gateway', reason: 'rate_limited' });
    expect(failure.message).toContain('answered 429');
    expect(server.requests).toHaveLength(1);
  });

  it("reports the provider's own error message from its documented error body, without retrying a 4xx", async () => {
    server.script({ status: 400 });
    const failure = await failureOf(provider.rerank('apple', DOCS));
    expect(failure).toMatchObject({ code: 'bad_gateway', reason: 'refused' });
    expect(failure.message).toBe(`Rerank provider ${api} answered 400: scripted 400`);
    expect(server.requests).toHaveLength(1);
  });

  it('fails after its bounded retries of 5xx answers', async () => {
    server.script({ status: 500 }, { status: 502 }, { status: 503 });
    const failure = await failureOf(provider.rerank('apple', DOCS));
    expect(failure).toMatchObject({ code: 'bad_gateway', reason: 'server_error' });
    expect(server.requests).toHaveLength(3);
  });

  it('answers 504 when the provider does not answer within the timeout, and does not repeat the wait', async () => {
    const impatient = new HttpRerankProvider(egress, { api, baseUrl: server.baseUrl, apiKey: 'sk-test', model: 'm', timeoutMs: 100, retry: QUICK });
    server.script({ hang: true });
    const failure = await failureOf(impatient.rerank('apple', DOCS));
    expect(failure).toMatchObject({ code: 'gateway_timeout', reason: 'timeout' });
    expect(server.requests).toHaveLength(1);
  });

  it('refuses an answer that does not score every document once', async () => {
    const short = { cohere: { results: [{ index: 0, relevance_score: 1 }] }, jina: { results: [{ index: 5, relevance_score: 1 }] }, tei: [{ index: 0, score: 'x' }], vllm: { data: [] } }[api];
    server.script({ body: short });
    const failure = await failureOf(provider.rerank('apple', DOCS));
    expect(failure).toMatchObject({ code: 'bad_gateway', reason: 'bad_response' });
  });

  it('is refused by the egress rules for a private address that LORE_EGRESS_ALLOW does not list', async () => {
    const guarded = new HttpRerankProvider(createNodeEgress(), { api, baseUrl: server.baseUrl, model: 'm', retry: QUICK });
    const failure = await failureOf(guarded.rerank('apple', DOCS));
    expect(failure).toBeInstanceOf(AppError);
    expect(failure.reason).toBe('refused');
    expect(server.requests).toHaveLength(0);
  });
});
