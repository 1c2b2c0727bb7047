import { Writable } from 'node:stream';
import { AppError, QuotaExceededError, requestMetadata } from '@lore/platform/kernel';
import { createInProcessTransport } from '@lore/platform/transport/in-process';
import { context as otelContext } from '@opentelemetry/api';
import { SpanKind, activeTraceFields, contextFromTraceHeaders, inProcessorSpan, inSpan, renderMetrics } from '@lore/platform/telemetry';
import { createLogger, instrumentedTransport, loadConfig, metricsListener, startTelemetry } from './index';

// No exporter configured: spans are not recorded, but their ids exist and travel.
startTelemetry('lore-telemetry-test', {});

function capturedLogger(): { logger: ReturnType<typeof createLogger>; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString('utf8')) as Record<string, unknown>);
      done();
    },
  });
  return { logger: createLogger({ logLevel: 'info' }, 'test', destination), lines };
}

const flushed = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('telemetry', () => {
  it('puts the active span\'s trace and span ids on every log line, and none outside a span', async () => {
    const { logger, lines } = capturedLogger();
    logger.info('outside');
    const ids = await inSpan('work', { kind: SpanKind.INTERNAL }, async () => {
      logger.child({ context: 'memory' }).info('inside');
      return activeTraceFields();
    });
    await flushed();
    expect(ids.trace_id).toMatch(/^[0-9a-f]{32}$/);
    expect(lines.find((l) => l['msg'] === 'outside')).not.toHaveProperty('trace_id');
    expect(lines.find((l) => l['msg'] === 'inside')).toMatchObject({ trace_id: ids.trace_id, span_id: ids.span_id, context: 'memory' });
  });

  it('continues the caller\'s trace in the served handler, stamps it on appended events, and a processor of those events joins it', async () => {
    const transport = instrumentedTransport(createInProcessTransport());
    let served: { ids: ReturnType<typeof activeTraceFields>; metadata: ReturnType<typeof requestMetadata> } | undefined;
    await transport.serve('test.command.do', async () => {
      served = { ids: activeTraceFields(), metadata: requestMetadata() };
      return { ok: true };
    });
    const caller = await inSpan('caller', { kind: SpanKind.INTERNAL }, async () => {
      await transport.request('test.command.do', {});
      return activeTraceFields();
    });
    expect(served?.ids.trace_id).toBe(caller.trace_id);
    // Spans are not recorded here (no exporter), so a message opens none: the handler runs in
    // the caller's span (with an exporter, `send` and `serve` spans: tracing.e2e.spec.ts).
    expect(served?.ids.span_id).toBe(caller.span_id);
    expect(served?.metadata.traceparent).toBe(`00-${caller.trace_id}-${served?.ids.span_id}-00`);

    const processed = await inProcessorSpan('test.reactor.v1', [{ metadata: { ...served?.metadata } }], async () => activeTraceFields());
    expect(processed.trace_id).toBe(caller.trace_id);
    // Events of no trace start one of their own.
    const untraced = await inProcessorSpan('test.reactor.v1', [{ metadata: {} }], async () => activeTraceFields());
    expect(untraced.trace_id).not.toBe(caller.trace_id);
    await transport.close();
  });

  it("stamps only the traceparent on appended events, never the client's tracestate (unauthenticated, kept for good)", () => {
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const remote = contextFromTraceHeaders({ traceparent, tracestate: 'vendor=client-chosen-text' });
    const metadata: Record<string, unknown> = otelContext.with(remote, () => requestMetadata());
    expect(metadata['traceparent']).toBe(traceparent);
    expect(metadata).not.toHaveProperty('tracestate');
  });

  it('counts storage-quota refusals by quota where they are served, as the 403 they are', async () => {
    const transport = instrumentedTransport(createInProcessTransport());
    await transport.serve('test.command.store', async () => {
      throw new QuotaExceededError('memories', 'Workspace quota memories of 1 reached (1 used)');
    });
    await expect(transport.request('test.command.store', {})).rejects.toMatchObject({ code: 'forbidden' });
    const { body } = await renderMetrics();
    expect(body).toContain('lore_quota_refusals_total{quota="memories"} 1');
    expect(body).toMatch(/# HELP lore_rate_limit_refusals_total .*caller.*workspace/);
    await transport.close();
  });

  it('measures requests on both sides by subject and outcome', async () => {
    const transport = instrumentedTransport(createInProcessTransport());
    await transport.serve('test.query.missing', async () => {
      throw new AppError('not_found', 'no such thing');
    });
    await expect(transport.request('test.query.missing', {})).rejects.toMatchObject({ code: 'not_found' });
    const { body } = await renderMetrics();
    expect(body).toContain('lore_transport_request_duration_seconds_count{side="server",subject="test.query.missing",outcome="not_found"} 1');
    expect(body).toContain('lore_transport_request_duration_seconds_count{side="client",subject="test.query.missing",outcome="not_found"} 1');
    await transport.close();
  });

  it('serves a service\'s /metrics on its own port, behind METRICS_TOKEN when set', async () => {
    const { logger } = capturedLogger();
    const listener = metricsListener(loadConfig({ HOST: '127.0.0.1', METRICS_PORT: '0', METRICS_TOKEN: 'scrape-secret' }), logger);
    await listener.start?.();
    try {
      const base = `http://127.0.0.1:${String(listener.port())}`;
      expect((await fetch(`${base}/metrics`)).status).toBe(401);
      expect((await fetch(`${base}/metrics`, { headers: { authorization: 'Bearer wrong-secret!' } })).status).toBe(401);
      const scraped = await fetch(`${base}/metrics`, { headers: { authorization: 'Bearer scrape-secret' } });
      expect(scraped.status).toBe(200);
      expect(await scraped.text()).toContain('# TYPE process_cpu_user_seconds_total counter');
      const other = await fetch(`${base}/health`, { headers: { authorization: 'Bearer scrape-secret' } });
      expect({ status: other.status, body: await other.json() }).toEqual({ status: 404, body: { detail: 'Not Found' } });
    } finally {
      await listener.stop();
    }
    // Without METRICS_PORT there is no listener.
    const none = metricsListener(loadConfig({ HOST: '127.0.0.1' }), logger);
    await none.start?.();
    expect(none.port()).toBeNull();
  });
});
