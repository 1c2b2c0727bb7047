import { z } from 'zod';
import { createNodeEgress } from '@lore/platform/egress/node';
import { ChatModelError, measuredChatModel, type ChatRequest } from '@lore/platform/chat/port';
import { error, startTestChatServer, type TestChatServer } from '@lore/platform/chat/contract';
import { metricsRegistry } from '@lore/platform/telemetry';
import { OpenAICompatibleChatModel, type OpenAIChatOptions } from './openai-chat.adapter';

const KEY = 'sk-chat-0123456789abcdef';
const Facts = z.object({ facts: z.array(z.string()) });
const request: ChatRequest<z.infer<typeof Facts>> = {
  messages: [
    { role: 'system', content: 'Extract facts.' },
    { role: 'user', content: 'I live in Paris.' },
  ],
  output: { name: 'facts', jsonSchema: z.toJSONSchema(Facts), schema: Facts },
};

describe('OpenAI-compatible chat model (wire format of https://platform.openai.com/docs/api-reference/chat/create)', () => {
  let server: TestChatServer;
  const egress = createNodeEgress({ allow: ['127.0.0.1'] });
  const open = (options: Partial<OpenAIChatOptions> = {}) =>
    new OpenAICompatibleChatModel(egress, { baseUrl: server.baseUrl, apiKey: KEY, model: 'gpt-test', retry: { baseDelayMs: 5, maxDelayMs: 20 }, ...options });
  const failureOf = async (promise: Promise<unknown>): Promise<ChatModelError> => {
    try {
      await promise;
    } catch (caught) {
      if (caught instanceof ChatModelError) return caught;
      throw caught;
    }
    throw new Error('expected a failure');
  };

  beforeAll(async () => {
    server = await startTestChatServer({ apiKey: KEY });
  });
  afterAll(() => server.close());
  beforeEach(() => {
    server.requests.length = 0;
    server.respondWith(() => ({ facts: ['lives in Paris'] }));
  });

  it('asks for JSON-schema output and returns the validated answer with the model and the token usage', async () => {
    const answer = await open().complete(request);
    expect(answer.value).toEqual({ facts: ['lives in Paris'] });
    expect(answer.model).toBe('gpt-test-2026-01-01');
    expect(answer.usage).toEqual({ promptTokens: expect.any(Number), completionTokens: expect.any(Number) });
    const sent = server.requests[0];
    expect(sent?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(sent?.body).toMatchObject({
      model: 'gpt-test',
      temperature: 0,
      messages: request.messages,
      response_format: { type: 'json_schema', json_schema: { name: 'facts', strict: true, schema: { type: 'object' } } },
    });
  });

  it('speaks Azure OpenAI: the key in `api-key`, the API version in the query', async () => {
    await open({ azure: { apiVersion: '2024-10-21' } }).complete(request);
    expect(server.requests[0]?.headers['api-key']).toBe(KEY);
    expect(server.requests[0]?.headers.authorization).toBeUndefined();
    expect(server.requests[0]?.url).toContain('api-version=2024-10-21');
  });

  it('reports a refusal for good at once, with the server\'s error message and code and never the key', async () => {
    server.script({ status: 400, body: error(`Invalid schema for response_format 'facts' (key ${KEY})`, 'invalid_request_error', 'invalid_json_schema') });
    const failure = await failureOf(open().complete(request));
    expect(failure.reason).toBe('refused');
    expect(failure.retryable).toBe(false);
    expect(failure.message).toContain("Invalid schema for response_format 'facts'");
    expect(failure.message).toContain('[invalid_json_schema]');
    expect(failure.message).not.toContain(KEY);
    expect(server.requests).toHaveLength(1);
  });

  it('names the key on a 401', async () => {
    const failure = await failureOf(open({ apiKey: 'sk-wrong-key' }).complete(request));
    expect(failure.reason).toBe('refused');
    expect(failure.message).toContain('CHAT_OPENAI_API_KEY');
  });

  it('waits as long as a 429 asks (Retry-After) and then succeeds', async () => {
    server.script({ status: 429, headers: { 'retry-after': '0.2' }, body: error('Rate limit reached for gpt-test', 'requests', 'rate_limit_exceeded') });
    const started = Date.now();
    const answer = await open().complete(request);
    expect(answer.value.facts).toEqual(['lives in Paris']);
    expect(Date.now() - started).toBeGreaterThanOrEqual(200);
    expect(server.requests).toHaveLength(2);
  });

  it('gives up at once when Retry-After is longer than it may wait, and after the retries on repeated 5xx', async () => {
    server.script({ status: 429, headers: { 'retry-after': '3600' }, body: error('Rate limit reached', 'requests', 'rate_limit_exceeded') });
    const limited = await failureOf(open().complete(request));
    expect(limited.reason).toBe('rate_limited');
    expect(limited.retryable).toBe(true);
    expect(server.requests).toHaveLength(1);

    server.requests.length = 0;
    server.script({ status: 500 }, { status: 502 }, { status: 503 });
    const failed = await failureOf(open({ retry: { maxRetries: 2, baseDelayMs: 5 } }).complete(request));
    expect(failed.reason).toBe('server_error');
    expect(server.requests).toHaveLength(3);
  });

  it('times out a slow answer per attempt, and retries it', async () => {
    server.script({ delayMs: 400 }, { delayMs: 400 });
    const failure = await failureOf(open({ timeoutMs: 100, retry: { maxRetries: 1, baseDelayMs: 5 } }).complete(request));
    expect(failure.reason).toBe('timeout');
    expect(failure.message).toContain('100 ms');
  });

  it.each([
    ['text that is not JSON', { content: 'Sure! Here are the facts: Paris' }, 'not JSON'],
    ['JSON of the wrong shape', { content: '{"facts": "Paris"}' }, 'does not match the facts schema'],
    ['a refusal', { content: '', refusal: 'I cannot help with that.' }, 'refused to answer'],
    ['an answer cut off at max tokens', { content: '{"facts": ["lives in Pa', finishReason: 'length' }, 'cut off'],
  ])('fails clearly, without crashing, on %s', async (_what, answer, expected) => {
    server.script(answer);
    const failure = await failureOf(open().complete(request));
    expect(failure.reason).toBe('malformed_output');
    expect(failure.message).toContain(expected);
  });

  it('goes through the egress rules: a loopback model is refused unless LORE_EGRESS_ALLOW lets it', async () => {
    const closed = new OpenAICompatibleChatModel(createNodeEgress(), { baseUrl: server.baseUrl, apiKey: KEY, model: 'gpt-test' });
    const failure = await failureOf(closed.complete(request));
    expect(failure.reason).toBe('refused');
    expect(server.requests).toHaveLength(0);
  });

  it('counts the tokens the server reported, by provider, model and kind', async () => {
    const model = measuredChatModel(open({ model: 'gpt-metered' }));
    const answer = await model.complete(request);
    const text = await metricsRegistry.metrics();
    expect(text).toContain(`lore_chat_tokens_total{provider="openai-compatible",model="gpt-metered",kind="prompt"} ${answer.usage?.promptTokens}`);
    expect(text).toContain(`lore_chat_tokens_total{provider="openai-compatible",model="gpt-metered",kind="completion"} ${answer.usage?.completionTokens}`);
    expect(text).toContain('lore_chat_calls_total{provider="openai-compatible",model="gpt-metered",outcome="ok"} 1');
  });
});
