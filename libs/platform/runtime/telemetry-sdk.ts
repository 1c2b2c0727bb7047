import { AlwaysOffSampler, NodeTracerProvider, BatchSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-node';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { OTLPTraceExporter as OtlpJsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OtlpProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { requestContextManager } from '@lore/platform/kernel';
import { collectProcessMetrics, setSpansRecorded } from '@lore/platform/telemetry';

export interface Telemetry {
  /** Sends the spans still buffered (on SIGTERM); the provider stays usable (a test restarts the app in one process). */
  flush(): Promise<void>;
}

let started: Telemetry | null = null;

/**
 * Starts the process's telemetry once: Node's default metrics, and a tracer provider with the
 * AsyncLocalStorage context manager and the W3C trace-context propagator, so every request has
 * a trace id for its log lines and its messages. Spans leave the process only when an OTLP
 * endpoint is configured by the standard variables (`OTEL_EXPORTER_OTLP_ENDPOINT` or
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`; protocol `http/protobuf` by default, or `http/json`;
 * `OTEL_SERVICE_NAME`, `OTEL_BSP_*` and `OTEL_TRACES_SAMPLER` are honoured as usual); otherwise
 * no span is recorded (the sampler is off) and only the ids exist, for log lines and for the
 * `traceparent` passed on (flag 00: not sampled). `OTEL_SDK_DISABLED=true` turns tracing off.
 */
export function startTelemetry(serviceName: string, env: NodeJS.ProcessEnv = process.env): Telemetry {
  if (started !== null) return started;
  collectProcessMetrics();
  if (env['OTEL_SDK_DISABLED']?.trim().toLowerCase() === 'true') {
    started = { flush: () => Promise.resolve() };
    return started;
  }
  const exporter = spanExporter(env);
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': blankToUndefined(env['OTEL_SERVICE_NAME']) ?? serviceName }),
    spanProcessors: exporter === null ? [] : [new BatchSpanProcessor(exporter)],
    // Nothing to export to: spans are not recorded at all (non-recording spans still have ids,
    // which the logs and the propagated `traceparent` use), so tracing costs next to nothing.
    ...(exporter === null ? { sampler: new AlwaysOffSampler() } : {}),
  });
  provider.register({ contextManager: requestContextManager });
  setSpansRecorded(exporter !== null);
  started = { flush: () => provider.forceFlush() };
  return started;
}

function spanExporter(env: NodeJS.ProcessEnv): SpanExporter | null {
  const endpoint = blankToUndefined(env['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT']) ?? blankToUndefined(env['OTEL_EXPORTER_OTLP_ENDPOINT']);
  if (endpoint === undefined) return null;
  const protocol = blankToUndefined(env['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL']) ?? blankToUndefined(env['OTEL_EXPORTER_OTLP_PROTOCOL']) ?? 'http/protobuf';
  // The exporters read the endpoint, headers, timeout and compression from the same variables.
  if (protocol === 'http/protobuf') return new OtlpProtobufExporter();
  if (protocol === 'http/json') return new OtlpJsonExporter();
  throw new Error(`OTEL_EXPORTER_OTLP_PROTOCOL=${protocol} is not supported: use http/protobuf or http/json`);
}

function blankToUndefined(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}
