import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A small real rerank server for tests, speaking one of the four documented wire formats:
 * - Cohere v2 (https://docs.cohere.com/reference/rerank): POST /v2/rerank {model, query, documents, top_n}
 *   → {id, results: [{index, relevance_score}], meta}; errors {"message"}.
 * - Jina (https://jina.ai/reranker/): POST /v1/rerank {model, query, documents, top_n, return_documents}
 *   → {model, usage: {total_tokens}, results: [{index, relevance_score, document?}]}; errors {"detail"}.
 * - TEI (https://huggingface.github.io/text-embeddings-inference/): POST /rerank {query, texts, raw_scores, truncate}
 *   → [{index, score}]; errors {"error", "error_type"}.
 * - vLLM (https://docs.vllm.ai/en/latest/serving/openai_compatible_server.html, Re-rank API): POST /v1/rerank
 *   {model, query, documents, top_n} → {id, model, usage, results: [{index, document: {text}, relevance_score}]};
 *   errors {"error": {"message", "type", "code"}}.
 * Its relevance: the share of the query's words found in the document (deterministic), plus a
 * fixed delay before answering when asked, and scripted misbehaviour for the next requests.
 */
export type RerankWire = 'cohere' | 'jina' | 'tei' | 'vllm';

export type ScriptedRerankAnswer =
  | { readonly status: number; readonly body?: unknown; readonly headers?: Readonly<Record<string, string>> }
  | { readonly hang: true }
  | { readonly body: unknown };

export interface RecordedRerankRequest {
  readonly path: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: Record<string, unknown>;
}

export interface TestRerankServer {
  /** The root the provider appends its path to. */
  readonly baseUrl: string;
  readonly requests: RecordedRerankRequest[];
  script(...answers: ScriptedRerankAnswer[]): void;
  close(): Promise<void>;
}

const PATHS: Readonly<Record<RerankWire, string>> = { cohere: '/v2/rerank', jina: '/v1/rerank', tei: '/rerank', vllm: '/v1/rerank' };

/** The server's relevance: distinct query words found in the document ÷ distinct query words. */
export function wordOverlap(query: string, document: string): number {
  const words = (text: string): Set<string> => new Set(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);
  const q = words(query);
  if (q.size === 0) return 0;
  const d = words(document);
  let found = 0;
  for (const w of q) if (d.has(w)) found++;
  return found / q.size;
}

export async function startTestRerankServer(wire: RerankWire, options: { readonly apiKey?: string; readonly delayMs?: number } = {}): Promise<TestRerankServer> {
  const requests: RecordedRerankRequest[] = [];
  const scripted: ScriptedRerankAnswer[] = [];
  const hanging = new Set<ServerResponse>();

  const error = (res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void => send(res, status, errorBody(wire, status, message), headers);

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      } catch {
        return error(res, 400, 'invalid JSON body');
      }
      requests.push({ path: req.url ?? '', headers: req.headers, body });
      const next = scripted.shift();
      if (next !== undefined && 'hang' in next) {
        hanging.add(res);
        return;
      }
      if (next !== undefined && 'status' in next) return send(res, next.status, next.body ?? errorBody(wire, next.status, `scripted ${next.status}`), next.headers ?? {});
      if (next !== undefined) return send(res, 200, next.body);
      if (req.method !== 'POST' || req.url !== PATHS[wire]) return error(res, 404, `no route ${req.method} ${req.url}`);
      if (options.apiKey !== undefined && req.headers.authorization !== `Bearer ${options.apiKey}`) return error(res, 401, 'invalid api token');
      const answer = (): void => {
        const outcome = rerankAnswer(wire, body);
        if (typeof outcome === 'string') return error(res, wire === 'tei' ? 422 : 400, outcome);
        send(res, 200, outcome);
      };
      if (options.delayMs === undefined) answer();
      else setTimeout(answer, options.delayMs);
    });
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    script: (...answers) => scripted.push(...answers),
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function rerankAnswer(wire: RerankWire, body: Record<string, unknown>): unknown {
  const query = body['query'];
  const documents = wire === 'tei' ? body['texts'] : body['documents'];
  if (typeof query !== 'string' || query === '') return 'query must be a non-empty string';
  if (!Array.isArray(documents) || documents.some((d) => typeof d !== 'string')) return `${wire === 'tei' ? 'texts' : 'documents'} must be an array of strings`;
  if (wire !== 'tei' && (typeof body['model'] !== 'string' || body['model'] === '')) return 'model is required';
  const scored = (documents as string[]).map((text, index) => ({ index, text, score: wordOverlap(query, text) })).sort((a, b) => b.score - a.score || a.index - b.index);
  const topN = typeof body['top_n'] === 'number' ? body['top_n'] : scored.length;
  const top = scored.slice(0, topN);
  switch (wire) {
    case 'cohere':
      return { id: 'test-rerank', results: top.map((s) => ({ index: s.index, relevance_score: s.score })), meta: { api_version: { version: '2' }, billed_units: { search_units: 1 } } };
    case 'jina':
      return {
        model: body['model'],
        usage: { total_tokens: 10 * documents.length },
        results: top.map((s) => ({ index: s.index, relevance_score: s.score, ...(body['return_documents'] === false ? {} : { document: { text: s.text } }) })),
      };
    case 'tei':
      return top.map((s) => ({ index: s.index, score: s.score }));
    case 'vllm':
      return { id: 'rerank-test', model: body['model'], usage: { total_tokens: 10 * documents.length }, results: top.map((s) => ({ index: s.index, document: { text: s.text }, relevance_score: s.score })) };
  }
}

/** Each API's documented error body. */
export function errorBody(wire: RerankWire, status: number, message: string): unknown {
  switch (wire) {
    case 'cohere':
      return { message };
    case 'jina':
      return { detail: message };
    case 'tei':
      return { error: message, error_type: status === 429 ? 'overloaded' : status === 413 ? 'payload_limit' : status === 422 ? 'validation' : 'backend' };
    case 'vllm':
      return { error: { message, type: status === 400 ? 'BadRequestError' : 'InternalServerError', param: null, code: status } };
  }
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}
