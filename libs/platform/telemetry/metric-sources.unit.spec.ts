import { metricsRegistry, renderMetrics } from './metrics';
import { onMetricSourceFailure, registerIngestionQueueSource, registerParkedCountSource, registerProcessorLagSource } from './metric-sources';

describe('metric sources', () => {
  it('a failing source costs only its own lines: the scrape answers, counts the failure and reports it', async () => {
    const reported: string[] = [];
    onMetricSourceFailure((metric, error) => reported.push(`${metric}: ${String(error)}`));
    const unregister = [
      registerProcessorLagSource({ lagByProcessor: () => Promise.reject(new Error('event store away')) }),
      registerProcessorLagSource({ lagByProcessor: async () => ({ 'test-good-v1': 7 }) }),
      registerParkedCountSource({ parkedCounts: () => ({ 'test-good-v1': 2 }) }),
      registerIngestionQueueSource({
        queueDepthByWorkspace: () => {
          throw new Error('queue gone');
        },
      }),
    ];
    try {
      const { body } = await renderMetrics();
      expect(body).toContain('lore_processor_lag_events{processor="test-good-v1"} 7');
      expect(body).toContain('lore_processor_parked_events{processor="test-good-v1"} 2');
      // Counted during the scrape (shown from the next one on: gauges collect while the counter renders).
      const failures = await metricsRegistry.getSingleMetric('lore_metric_source_failures_total')?.get();
      expect(Object.fromEntries((failures?.values ?? []).map((v) => [v.labels['metric'], v.value]))).toEqual({ lore_processor_lag_events: 1, lore_ingestion_queue_depth: 1 });
      expect(reported.sort()).toEqual(['lore_ingestion_queue_depth: Error: queue gone', 'lore_processor_lag_events: Error: event store away']);
    } finally {
      for (const off of unregister) off();
    }
  });
});
