import type { Histogram } from 'prom-client';

/**
 * Observes a histogram per label set through a cached child: prom-client hashes the labels on
 * every `observe(labels, value)`, which showed in profiles of the request path (three
 * observations per request). Label sets are bounded (route templates, subjects, outcomes), so
 * the cache is too.
 */
export function labelledObserver<L extends string>(histogram: Histogram<L>): (labels: Record<L, string>, key: string, seconds: number) => void {
  const children = new Map<string, { observe(value: number): void }>();
  return (labels, key, seconds) => {
    let child = children.get(key);
    if (child === undefined) {
      child = histogram.labels(labels);
      children.set(key, child);
    }
    child.observe(seconds);
  };
}
