import { setTimeout as sleep } from 'node:timers/promises';
import { EgressRefused, type Egress, type OutboundResponse } from '@lore/platform/egress/port';
import { DEFAULT_RETRY_POLICY, isRetryableStatus, nextDelayMs, retryAfterMs, type RetryPolicy } from '@lore/platform/kernel';
import { ChatModelError, type ChatAnswer, type ChatModel, type ChatModelFailureReason, type ChatModelInfo, type ChatRequest, type ChatUsage } from '@lore/platform/chat/port';

export interface OpenAIChatOptions {
  /**
   * The API root; requests go to `<baseUrl>/chat/completions`. OpenAI `https://api.openai.com/v1`,
   * Ollama `http://localhost:11434/v1`, vLLM `http://localhost:8000/v1`, LM Studio
   * `http://localhost:1234/v1`; Azure OpenAI `https://<resource>.openai.azure.com/openai/deployments/<deployment>`
   * with `azure.apiVersion`, or its v1 API `https://<resource>.openai.azure.com/openai/v1` with `azure: {}`.
   */
  readonly baseUrl: string;
  /** Sent as `Authorization: Bearer …`, or as `api-key: …` for Azure; omitted when unset (local servers). */
  readonly apiKey?: string | undefined;
  readonly model: string;
  readonly azure?: { readonly apiVersion?: string | undefined };
  /** Per attempt, body included (default 60 s: a model writes its answer before the response ends). */
  readonly timeoutMs?: number;
  readonly retry?: Partial<RetryPolicy>;
  /** Largest response accepted (default 4 MiB). */
  readonly maxResponseBytes?: number;
}

/** The parts of a chat completion read here (https://platform.openai.com/docs/api-reference/chat/object). */
interface CompletionBody {
  readonly model?: unknown;
  readonly choices?: ReadonlyArray<{ readonly finish_reason?: unknown; readonly message?: { readonly content?: unknown; readonly refusal?: unknown } }>;
  readonly usage?: { readonly prompt_tokens?: unknown; readonly completion_tokens?: unknown } | null;
}

/**
 * An OpenAI-compatible chat-completions server (https://platform.openai.com/docs/api-reference/chat/create),
 * asked for structured output: `response_format: {type: "json_schema", json_schema: {name, schema, strict: true}}`.
 * Requests leave through the egress port, so the operator's rules hold (a model on a private
 * address must be in LORE_EGRESS_ALLOW, or reached through LORE_EGRESS_PROXY). 429, 5xx,
 * timeouts and unreachable servers are retried with the embeddings' policy (full-jitter backoff,
 * `Retry-After` / `retry-after-ms` honoured up to a bound); a refusal for good is reported at
 * once. The answer is JSON-parsed and checked against the request's zod schema: anything else
 * (not JSON, wrong shape, a refusal, a cut-off answer) is `malformed_output`, never a crash.
 */
export class OpenAICompatibleChatModel implements ChatModel {
  readonly info: ChatModelInfo;
  private readonly url: string;
  private readonly headers: Record<string, string>;
  private readonly policy: RetryPolicy;

  constructor(
    private readonly egress: Egress,
    private readonly options: OpenAIChatOptions,
  ) {
    const url = new URL(options.baseUrl.replace(/\/+$/, '') + '/chat/completions');
    if (options.azure?.apiVersion !== undefined) url.searchParams.set('api-version', options.azure.apiVersion);
    this.url = url.toString();
    this.headers = { 'content-type': 'application/json', accept: 'application/json' };
    if (options.apiKey !== undefined && options.apiKey !== '') {
      if (options.azure) this.headers['api-key'] = options.apiKey;
      else this.headers.authorization = `Bearer ${options.apiKey}`;
    }
    this.policy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    this.info = { provider: 'openai-compatible', model: options.model };
  }

  async complete<T>(request: ChatRequest<T>): Promise<ChatAnswer<T>> {
    const body = JSON.stringify({
      model: this.options.model,
      messages: request.messages,
      temperature: request.temperature ?? 0,
      ...(request.maxOutputTokens === undefined ? {} : { max_tokens: request.maxOutputTokens }),
      response_format: { type: 'json_schema', json_schema: { name: request.output.name, schema: request.output.jsonSchema, strict: true } },
    });
    const timeoutMs = this.options.timeoutMs ?? 60_000;
    for (let retry = 0; ; retry++) {
      let failure: ChatModelError;
      let serverWait: number | undefined;
      try {
        const response = await this.egress.request({
          method: 'POST',
          url: this.url,
          headers: this.headers,
          body,
          timeoutMs,
          maxResponseBytes: this.options.maxResponseBytes ?? 4 * 1024 * 1024,
          maxRedirects: 0,
        });
        if (response.status >= 200 && response.status < 300) return this.answer(response, request);
        const detail = this.providerMessage(response.body);
        const what = `answered ${response.status}${detail ? `: ${detail}` : ''}`;
        if (!isRetryableStatus(response.status)) throw this.failure('refused', `${what}${hint(response.status)}`);
        failure = this.failure(response.status === 429 ? 'rate_limited' : 'server_error', what);
        serverWait = retryAfterMs({ get: (name) => response.headers[name] ?? null });
      } catch (error) {
        if (error instanceof ChatModelError) throw error;
        if (!(error instanceof EgressRefused)) throw error;
        if (error.reason === 'timeout') failure = this.failure('timeout', `did not answer within ${timeoutMs} ms`);
        else if (error.reason === 'unreachable') failure = this.failure('network', `could not be reached (${error.message})`);
        // A blocked address, a redirect or an oversized answer will not change on a retry.
        else throw this.failure('refused', `could not be called: ${error.message}`);
      }
      const delay = nextDelayMs(retry, this.policy, serverWait);
      if (delay === undefined) throw failure;
      await sleep(delay);
    }
  }

  private answer<T>(response: OutboundResponse, request: ChatRequest<T>): ChatAnswer<T> {
    let body: CompletionBody;
    try {
      body = JSON.parse(response.body) as CompletionBody;
    } catch {
      throw this.failure('malformed_output', 'sent a response that is not JSON');
    }
    const choice = body?.choices?.[0];
    if (choice === undefined) throw this.failure('malformed_output', 'sent a completion without choices');
    const refusal = choice.message?.refusal;
    if (typeof refusal === 'string' && refusal !== '') throw this.failure('malformed_output', `refused to answer: ${refusal.slice(0, 300)}`);
    if (choice.finish_reason === 'length') throw this.failure('malformed_output', 'was cut off before finishing its answer (finish_reason "length")');
    const content = choice.message?.content;
    if (typeof content !== 'string') throw this.failure('malformed_output', 'sent a message without text content');
    let json: unknown;
    try {
      json = JSON.parse(content);
    } catch {
      throw this.failure('malformed_output', `answered with text that is not JSON (${JSON.stringify(content.slice(0, 80))})`);
    }
    const parsed = request.output.schema.safeParse(json);
    if (!parsed.success) {
      const issues = parsed.error.issues.slice(0, 3).map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
      throw this.failure('malformed_output', `answered JSON that does not match the ${request.output.name} schema (${issues.join('; ')})`);
    }
    return { value: parsed.data, model: typeof body.model === 'string' ? body.model : this.options.model, usage: usageOf(body.usage) };
  }

  private failure(reason: ChatModelFailureReason, what: string): ChatModelError {
    const url = new URL(this.url);
    return new ChatModelError(reason, `The chat model ${this.options.model} at ${url.origin}${url.pathname} ${what}.`);
  }

  /** The server's own explanation (`{"error": {"message", "type", "code"}}`), shortened, the API key masked. */
  private providerMessage(text: string): string {
    let message = text.trim();
    try {
      const parsed = JSON.parse(text) as { error?: { message?: unknown; code?: unknown } | string; message?: unknown };
      const error = parsed.error;
      const candidate = typeof error === 'string' ? error : (error?.message ?? parsed.message);
      const code = typeof error === 'object' && typeof error?.code === 'string' ? ` [${error.code}]` : '';
      if (typeof candidate === 'string') message = `${candidate}${code}`;
    } catch {
      // not JSON: keep the text
    }
    const key = this.options.apiKey;
    if (key !== undefined && key.length >= 4) message = message.split(key).join('***');
    return message.length > 500 ? `${message.slice(0, 500)}…` : message;
  }
}

function usageOf(usage: CompletionBody['usage']): ChatUsage | null {
  const prompt = usage?.prompt_tokens;
  const completion = usage?.completion_tokens;
  if (typeof prompt !== 'number' || typeof completion !== 'number') return null;
  return { promptTokens: prompt, completionTokens: completion };
}

function hint(status: number): string {
  if (status === 401 || status === 403) return '. Check CHAT_OPENAI_API_KEY';
  if (status === 404) return '. Check CHAT_OPENAI_BASE_URL and CHAT_OPENAI_MODEL';
  return '';
}
