import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { call, mintJwt, unique, type LoreUnderTest } from './e2e-client';

type Families = ReturnType<typeof parsePrometheusTextFormat>;

/** A scrape, parsed: its families (name, type, help), and its sample lines one by one. */
export interface Scrape {
  readonly families: Families;
  /**
   * Every sample line by its own name (`x_count`, `x_bucket`…) with its labels. The parser
   * groups a histogram's series into one entry without their labels (its prom2json-style
   * flattening), so the sample lines are read by the same parser with the TYPE lines left out.
   */
  readonly samples: Families;
}

/** Scrapes a `/metrics` endpoint and parses it with a Prometheus text-format parser. */
export async function scrape(url: string): Promise<Scrape> {
  const response = await fetch(`${url}/metrics`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  const text = await response.text();
  return { families: parsePrometheusTextFormat(text), samples: parsePrometheusTextFormat(text.replace(/^# TYPE .*$/gm, '')) };
}

export function family(families: Families, name: string): Families[number] {
  const found = families.find((f) => f.name === name);
  if (found === undefined) throw new Error(`no metric family ${name}; families: ${families.map((f) => f.name).join(', ')}`);
  return found;
}

/** The count of the histogram series with exactly these labels (0 when absent). */
export function histogramCount(scraped: Scrape, name: string, labels: Record<string, string>): number {
  // Without TYPE lines each run of lines of one name is an entry of its own: gather them.
  const counts = scraped.samples.filter((f) => f.name === `${name}_count`).flatMap((f) => f.metrics);
  const series = counts.find((m) => Object.keys(m.labels ?? {}).length === Object.keys(labels).length && Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
  return Number(series?.value ?? 0);
}

const GATEWAY_FAMILIES: Record<string, string> = {
  lore_http_request_duration_seconds: 'HISTOGRAM',
  lore_transport_request_duration_seconds: 'HISTOGRAM',
  lore_rate_limit_refusals_total: 'COUNTER',
  process_cpu_user_seconds_total: 'COUNTER',
  nodejs_eventloop_lag_seconds: 'GAUGE',
};

/** What a process hosting contexts (a service, or the standalone app) adds. */
export const SERVICE_FAMILIES: Record<string, string> = {
  lore_transport_request_duration_seconds: 'HISTOGRAM',
  lore_processor_lag_events: 'GAUGE',
  lore_processor_parked_events: 'GAUGE',
  lore_ingestion_queue_depth: 'GAUGE',
  lore_embedding_texts_total: 'COUNTER',
  lore_embedding_characters_total: 'COUNTER',
  lore_embedding_duration_seconds: 'HISTOGRAM',
  process_resident_memory_bytes: 'GAUGE',
};

/**
 * `/metrics` in the Prometheus text format: the families an operator needs, and a request
 * counted under its route template (never its raw URL) and status. `services` lists the
 * service processes' own metrics endpoints (distributed); in standalone the gateway's
 * endpoint serves them all.
 */
export function describeMetrics(lore: () => LoreUnderTest, options: { services?: () => readonly string[] } = {}): void {
  describe('metrics', () => {
    it('serves the metric families in the Prometheus text format', async () => {
      const { families } = await scrape(lore().url);
      const expected = options.services === undefined ? { ...GATEWAY_FAMILIES, ...SERVICE_FAMILIES } : GATEWAY_FAMILIES;
      for (const [name, type] of Object.entries(expected)) expect({ name, type: family(families, name).type }).toEqual({ name, type });
    });

    it('counts a request under its route template and status, and its message under the subject', async () => {
      const token = await mintJwt(lore().jwtSecret, { sub: unique('metrics-user'), workspace_id: unique('metrics-ws') });
      const route = { method: 'GET', route: '/api/v1/memories/:memory_id', status: '404' };
      const message = { side: 'client', subject: 'memory.query.get', outcome: 'not_found' };
      const before = await scrape(lore().url);
      const id = `mem_${unique('absent').replace('-', '')}`;
      expect((await call(lore(), 'GET', `/api/v1/memories/${id}`, { token })).status).toBe(404);
      const after = await scrape(lore().url);
      expect(histogramCount(after, 'lore_http_request_duration_seconds', route)).toBe(histogramCount(before, 'lore_http_request_duration_seconds', route) + 1);
      expect(histogramCount(after, 'lore_transport_request_duration_seconds', message)).toBe(histogramCount(before, 'lore_transport_request_duration_seconds', message) + 1);
      // The id is nowhere in the metrics: routes are templates.
      const text = await (await fetch(`${lore().url}/metrics`)).text();
      expect(text).not.toContain(id);
    });

    if (options.services !== undefined) {
      const services = options.services;
      it('serves each service process\'s own metrics on its metrics port', async () => {
        const urls = services();
        expect(urls.length).toBeGreaterThan(0);
        const token = await mintJwt(lore().jwtSecret, { sub: unique('metrics-user'), workspace_id: unique('metrics-ws') });
        const served = { side: 'server', subject: 'memory.command.create', outcome: 'ok' };
        const before = await Promise.all(urls.map((url) => scrape(url)));
        expect((await call(lore(), 'POST', '/api/v1/memories', { token, body: { memory: 'counted by the memory service' } })).status).toBe(201);
        const after = await Promise.all(urls.map((url) => scrape(url)));
        for (const { families } of after) {
          for (const [name, type] of Object.entries(SERVICE_FAMILIES)) expect({ name, type: family(families, name).type }).toEqual({ name, type });
        }
        // Exactly one service (memory) served the create.
        const increments = after.map((families, i) => histogramCount(families, 'lore_transport_request_duration_seconds', served) - histogramCount(before[i] as Scrape, 'lore_transport_request_duration_seconds', served));
        expect(increments.filter((n) => n === 1)).toHaveLength(1);
        expect(increments.filter((n) => n !== 0 && n !== 1)).toEqual([]);
        // Lag per processor, by name.
        const lagged = after.flatMap(({ families }) => family(families, 'lore_processor_lag_events').metrics.map((m) => m.labels?.['processor']));
        expect(lagged).toContain('memory.search-index.v2');
      });
    }
  });
}
