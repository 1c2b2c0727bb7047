import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A small real OpenAI chat-completions server for tests, speaking the wire format of
 * https://platform.openai.com/docs/api-reference/chat/create: a `chat.completion` object with
 * `choices[0].message.content` and `usage`, errors as `{"error": {"message", "type", "param", "code"}}`,
 * 429 with `Retry-After`. What the model "answers" is the test's: a function of the request
 * (a scripted model), or scripted answers for the next requests.
 */
export interface ChatCompletionRequestBody {
  readonly model: string;
  readonly messages: ReadonlyArray<{ readonly role: string; readonly content: string }>;
  readonly temperature?: number;
  readonly response_format?: { readonly type: string; readonly json_schema?: { readonly name: string; readonly schema: unknown; readonly strict?: boolean } };
}

export type ScriptedChatAnswer =
  /** An HTTP error (or any status) with this body and headers. */
  | { readonly status: number; readonly body?: unknown; readonly headers?: Readonly<Record<string, string>> }
  /** Answers only after this long (a slow model, or past the caller's timeout). */
  | { readonly delayMs: number }
  /** The assistant message's text, as given (not JSON, say). */
  | { readonly content: string; readonly finishReason?: string; readonly refusal?: string };

export interface TestChatServer {
  /** The API root to use as base URL, e.g. `http://127.0.0.1:1234/v1`. */
  readonly baseUrl: string;
  readonly requests: Array<{ readonly headers: Readonly<Record<string, string | string[] | undefined>>; readonly url: string; readonly body: ChatCompletionRequestBody }>;
  /** The scripted model: what JSON it answers to a request (default: `{}`). */
  respondWith(model: (request: ChatCompletionRequestBody) => unknown): void;
  /** The next requests are answered like this, in order; later ones by the scripted model. */
  script(...answers: ScriptedChatAnswer[]): void;
  close(): Promise<void>;
}

/** The variables that make a context use this server as its chat model. */
export function testChatEnv(server: Pick<TestChatServer, 'baseUrl'>): Record<string, string> {
  return { CHAT_OPENAI_BASE_URL: server.baseUrl, CHAT_OPENAI_MODEL: 'scripted-model', CHAT_OPENAI_API_KEY: 'sk-chat-test', LORE_EGRESS_ALLOW: '127.0.0.1', CHAT_RETRY_BASE_DELAY_MS: '5' };
}

export async function startTestChatServer(options: { readonly apiKey?: string } = {}): Promise<TestChatServer> {
  const requests: TestChatServer['requests'] = [];
  const scripted: ScriptedChatAnswer[] = [];
  let model: (request: ChatCompletionRequestBody) => unknown = () => ({});

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (req.method !== 'POST' || !req.url?.split('?')[0]?.endsWith('/chat/completions')) {
      return send(res, 404, error(`Unknown request URL: ${req.method} ${req.url}`, 'invalid_request_error', 'unknown_url'));
    }
    if (options.apiKey !== undefined && req.headers.authorization !== `Bearer ${options.apiKey}` && req.headers['api-key'] !== options.apiKey) {
      return send(res, 401, error(`Incorrect API key provided: ${String(req.headers.authorization ?? '')}.`, 'invalid_request_error', 'invalid_api_key'));
    }
    let body: ChatCompletionRequestBody;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChatCompletionRequestBody;
    } catch {
      return send(res, 400, error('We could not parse the JSON body of your request.', 'invalid_request_error', null));
    }
    requests.push({ headers: req.headers, url: req.url, body });
    let answer = scripted.shift();
    if (answer !== undefined && 'delayMs' in answer) {
      await new Promise((resolve) => setTimeout(resolve, answer && 'delayMs' in answer ? answer.delayMs : 0));
      answer = undefined;
    }
    if (answer !== undefined && 'status' in answer) {
      res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
      res.end(JSON.stringify(answer.body ?? error('The server had an error while processing your request.', 'server_error', null)));
      return;
    }
    const content = answer !== undefined ? answer.content : JSON.stringify(model(body));
    send(res, 200, {
      id: `chatcmpl-${requests.length}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: `${body.model}-2026-01-01`,
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content, refusal: answer?.refusal ?? null },
          logprobs: null,
          finish_reason: answer?.finishReason ?? 'stop',
        },
      ],
      usage: { prompt_tokens: promptTokens(body), completion_tokens: Math.ceil(content.length / 4), total_tokens: promptTokens(body) + Math.ceil(content.length / 4) },
    });
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => send(res, 500, error(String(err), 'server_error', null)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    respondWith(next) {
      model = next;
    },
    script(...answers) {
      scripted.push(...answers);
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** OpenAI's error object (https://platform.openai.com/docs/guides/error-codes). */
export function error(message: string, type: string, code: string | null): { error: { message: string; type: string; param: null; code: string | null } } {
  return { error: { message, type, param: null, code } };
}

function promptTokens(body: ChatCompletionRequestBody): number {
  return Math.ceil(body.messages.reduce((sum, m) => sum + m.content.length, 0) / 4);
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}
