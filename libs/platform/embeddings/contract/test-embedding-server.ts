import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A small real OpenAI-compatible `/v1/embeddings` server for tests: deterministic vectors
 * (hashed bag of words, deliberately NOT normalised, returned in reverse order with their
 * `index`), OpenAI's error shapes, and scripted misbehaviour (429 with Retry-After, 500,
 * slow or hanging answers, dropped connections) for the next requests.
 */
export interface TestEmbeddingServerOptions {
  /** Native vector length (default 64). */
  readonly dimensions?: number;
  /** Inputs with more words than this are refused with 400, as OpenAI does (default 10 000). */
  readonly maxInputWords?: number;
  /** When set, requests must carry it as `Authorization: Bearer` or `api-key`; 401 echoes what was sent. */
  readonly apiKey?: string;
}

export type ScriptedAnswer =
  | { readonly status: number; readonly body?: unknown; readonly headers?: Readonly<Record<string, string>> }
  | { readonly delayMs: number }
  | { readonly hang: true }
  | { readonly drop: true };

export interface RecordedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: { model?: unknown; input?: unknown; dimensions?: unknown; encoding_format?: unknown } | undefined;
}

export interface TestEmbeddingServer {
  /** The API root to use as `baseUrl`, e.g. `http://127.0.0.1:1234/v1`. */
  readonly baseUrl: string;
  readonly requests: RecordedRequest[];
  /** The next requests are answered like this, in order; later ones normally. */
  script(...answers: ScriptedAnswer[]): void;
  close(): Promise<void>;
}

/** The variables that make a context embed through this server (an OpenAI-compatible provider, 64 dimensions by default). */
export function testEmbeddingEnv(server: Pick<TestEmbeddingServer, 'baseUrl'>, dimensions = 64): Record<string, string> {
  return {
    EMBEDDING_DEFAULT_PROVIDER: 'openai-compatible',
    EMBEDDING_OPENAI_BASE_URL: server.baseUrl,
    EMBEDDING_OPENAI_MODEL: 'test-embedder',
    EMBEDDING_OPENAI_DIMENSIONS: String(dimensions),
    EMBEDDING_OPENAI_MAX_INPUT_TOKENS: '512',
  };
}

export const SCALE = 2.5;

/** The server's vector for a text: words (lower-cased letters and digits) hashed into signed buckets. */
export function bagOfWordsVector(text: string, dimensions: number): Float32Array {
  const vector = new Float32Array(dimensions);
  vector[0] = 0.01; // never all zero, even for a text without words
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    const hash = createHash('sha256').update(word).digest();
    const bucket = hash.readUInt32LE(0) % dimensions;
    vector[bucket] = (vector[bucket] as number) + ((hash[4] as number) % 2 === 0 ? 1 : -1);
  }
  return vector.map((x) => x * SCALE);
}

export async function startTestEmbeddingServer(options: TestEmbeddingServerOptions = {}): Promise<TestEmbeddingServer> {
  const dimensions = options.dimensions ?? 64;
  const maxWords = options.maxInputWords ?? 10_000;
  const requests: RecordedRequest[] = [];
  const scripted: ScriptedAnswer[] = [];
  const hanging = new Set<ServerResponse>();
  // Scripted delays still running: close() clears them, or a 5 s delay outlived the test file
  // and kept its jest worker from exiting ("A worker process has failed to exit gracefully").
  // A cleared delay leaves its request's handler waiting for ever, holding no handle: its
  // connection is closed with the server.
  const delays = new Set<NodeJS.Timeout>();

  const send = (res: ServerResponse, status: number, body: unknown, headers: Readonly<Record<string, string>> = {}): void => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };
  const error = (res: ServerResponse, status: number, message: string, type = 'invalid_request_error'): void =>
    send(res, status, { error: { message, type, param: null, code: null } });

  const answer = async (req: IncomingMessage, res: ServerResponse, raw: string): Promise<void> => {
    let body: RecordedRequest['body'];
    try {
      body = JSON.parse(raw) as RecordedRequest['body'];
    } catch {
      body = undefined;
    }
    requests.push({ method: req.method ?? '', url: req.url ?? '', headers: { ...req.headers }, body });

    const next = scripted.shift();
    if (next && 'drop' in next) {
      req.socket.destroy();
      return;
    }
    if (next && 'hang' in next) {
      hanging.add(res);
      return;
    }
    if (next && 'delayMs' in next) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          delays.delete(timer);
          resolve();
        }, next.delayMs);
        delays.add(timer);
      });
    }
    if (next && 'status' in next) {
      send(res, next.status, next.body ?? { error: { message: `scripted ${next.status}`, type: 'server_error' } }, next.headers);
      return;
    }

    if (req.method !== 'POST' || !/^\/v1\/(deployments\/[^/]+\/)?embeddings$/.test(new URL(req.url ?? '/', 'http://x').pathname)) {
      error(res, 404, `Unknown request URL: ${req.method} ${req.url}`);
      return;
    }
    if (options.apiKey !== undefined) {
      const sent = req.headers['api-key'] ?? req.headers.authorization?.replace(/^Bearer /, '');
      if (sent !== options.apiKey) {
        error(res, 401, `Incorrect API key provided: ${String(sent)}.`, 'invalid_api_key');
        return;
      }
    }
    if (body === undefined) {
      error(res, 400, 'We could not parse the JSON body of your request.');
      return;
    }
    const inputs = typeof body.input === 'string' ? [body.input] : body.input;
    if (!Array.isArray(inputs) || inputs.length === 0 || !inputs.every((x) => typeof x === 'string')) {
      error(res, 400, "'$.input' is invalid.");
      return;
    }
    if (inputs.some((x) => x === '')) {
      error(res, 400, "'$.input' is invalid: empty strings are not allowed.");
      return;
    }
    const tooLong = inputs.find((x) => (x.match(/\S+/g) ?? []).length > maxWords);
    if (tooLong !== undefined) {
      error(res, 400, `This model's maximum context length is ${maxWords} tokens, however you requested more.`);
      return;
    }
    let size = dimensions;
    if (body.dimensions !== undefined) {
      if (typeof body.dimensions !== 'number' || body.dimensions < 1 || body.dimensions > dimensions) {
        error(res, 400, `dimensions must be between 1 and ${dimensions}`);
        return;
      }
      size = body.dimensions;
    }
    const data = inputs
      .map((text, index) => {
        const vector = bagOfWordsVector(text, dimensions).slice(0, size);
        const embedding = body.encoding_format === 'base64' ? Buffer.from(vector.buffer).toString('base64') : Array.from(vector);
        return { object: 'embedding', index, embedding };
      })
      .reverse();
    send(res, 200, { object: 'list', data, model: body.model, usage: { prompt_tokens: 0, total_tokens: 0 } });
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      answer(req, res, Buffer.concat(chunks).toString('utf8')).catch((err: unknown) => error(res, 500, String(err)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    script: (...answers) => scripted.push(...answers),
    close: async () => {
      for (const timer of delays) clearTimeout(timer);
      delays.clear();
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
