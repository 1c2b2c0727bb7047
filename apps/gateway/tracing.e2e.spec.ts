import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { createInterface } from 'node:readline';
import { describeWithServer } from '@lore/platform/testing';
import { call, mintJwt } from '@lore/gateway/e2e';
import { modelsDirForTests } from '@lore/platform/embeddings/contract';
import { startDistributedTopology, type DistributedTopology } from './distributed-topology.fixture';

const JWT_SECRET = 'tracing-e2e-secret';
const SUBJECT_PREFIX = `trace${process.pid}`;

/** A span as the OTLP/JSON export carries it, with its process's `service.name`. */
interface ReceivedSpan {
  readonly service: string;
  readonly name: string;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
}

/**
 * One trace across the distributed topology: an HTTP request with a W3C `traceparent` enters the
 * gateway, crosses NATS (headers) to the memory service, whose handler appends an event that a
 * reactor then processes; every span reaches a local OTLP/HTTP receiver (the OTLP JSON wire
 * format, as a collector receives it) with the caller's trace id, and the gateway's log line
 * for the request carries it.
 */
describeWithServer('NATS_URL', 'traces across the distributed topology', (natsUrl) => {
  let topology: DistributedTopology;
  let receiver: Server;
  let url = '';
  const spans: ReceivedSpan[] = [];
  const logLines: Record<string, unknown>[] = [];

  beforeAll(async () => {
    receiver = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        if (request.url === '/v1/traces') spans.push(...spansOf(JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpTraces));
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const address = receiver.address();
    const otlp = typeof address === 'object' && address !== null ? `http://127.0.0.1:${address.port}` : '';

    topology = await startDistributedTopology({
      natsUrl,
      subjectPrefix: SUBJECT_PREFIX,
      stdout: 'pipe',
      env: {
        AUTH_JWT_SECRET: JWT_SECRET,
        LOG_LEVEL: 'info',
        MODELS_DIR: modelsDirForTests(),
        OTEL_EXPORTER_OTLP_ENDPOINT: otlp,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_BSP_SCHEDULE_DELAY: '100',
      },
    });
    const stdout = topology.process.stdout;
    if (stdout === null) throw new Error('no stdout');
    createInterface({ input: stdout }).on('line', (line) => {
      try {
        logLines.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        // not a log line
      }
    });
    url = topology.url;
  }, 60_000);

  afterAll(async () => {
    await topology.stop();
    await new Promise((resolve) => receiver.close(resolve));
  });

  it('carries the caller\'s trace id from the gateway over NATS to the service and its reactors, and onto the log lines', async () => {
    const traceId = randomBytes(16).toString('hex');
    const callerSpanId = randomBytes(8).toString('hex');
    const token = await mintJwt(JWT_SECRET, { sub: 'trace-user', workspace_id: 'trace-ws' });
    const created = await call({ url, jwtSecret: JWT_SECRET }, 'POST', '/api/v1/memories', {
      token,
      body: { memory: 'followed from end to end' },
      headers: { traceparent: `00-${traceId}-${callerSpanId}-01` },
    });
    expect(created.status).toBe(201);

    const wanted = (span: ReceivedSpan): boolean => span.traceId === traceId;
    const find = (service: string, name: string): ReceivedSpan | undefined => spans.find((s) => wanted(s) && s.service === service && s.name === name);
    const deadline = Date.now() + 15_000;
    while (Date.now() < deadline && !(find('lore-memory', 'process memory.integration-events.v1') && find('lore-memory', 'serve memory.command.create') && find('lore-gateway', 'POST /api/v1/memories'))) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }

    const http = find('lore-gateway', 'POST /api/v1/memories');
    const send = find('lore-gateway', 'send memory.command.create');
    const serve = find('lore-memory', 'serve memory.command.create');
    const reactor = find('lore-memory', 'process memory.integration-events.v1');
    expect({ http: http !== undefined, send: send !== undefined, serve: serve !== undefined, reactor: reactor !== undefined }).toEqual({ http: true, send: true, serve: true, reactor: true });
    // One chain: the caller's span → the gateway's request → its message → the service's handling → the reactor.
    expect(http?.parentSpanId).toBe(callerSpanId);
    expect(send?.parentSpanId).toBe(http?.spanId);
    expect(serve?.parentSpanId).toBe(send?.spanId);
    expect(reactor?.parentSpanId).toBe(serve?.spanId);

    const requestLine = logLines.find((line) => line['msg'] === 'request' && line['route'] === '/api/v1/memories' && line['trace_id'] === traceId);
    expect(requestLine).toMatchObject({ name: 'lore-gateway', status: 201, trace_id: traceId, span_id: http?.spanId });
  });
});

interface OtlpTraces {
  readonly resourceSpans?: {
    readonly resource?: { readonly attributes?: { readonly key: string; readonly value: { readonly stringValue?: string } }[] };
    readonly scopeSpans?: { readonly spans?: { readonly name: string; readonly traceId: string; readonly spanId: string; readonly parentSpanId?: string }[] }[];
  }[];
}

function spansOf(body: OtlpTraces): ReceivedSpan[] {
  return (body.resourceSpans ?? []).flatMap((resource) => {
    const service = resource.resource?.attributes?.find((a) => a.key === 'service.name')?.value.stringValue ?? '';
    return (resource.scopeSpans ?? []).flatMap((scope) =>
      (scope.spans ?? []).map((span) => ({ service, name: span.name, traceId: span.traceId, spanId: span.spanId, ...(span.parentSpanId ? { parentSpanId: span.parentSpanId } : {}) })),
    );
  });
}
