import type { ReplyOf } from '@lore/client';

/** What a connection test found: passed or not, the API's message, the HTTP status the integration answered and how long it took. */
export function TestResult({ result }: { result: ReplyOf<'test_connection'> }) {
  return (
    <div role="status" className={result.success ? 'test-result ok' : 'test-result failed'} data-testid="test-result">
      <strong>{result.success ? 'Test passed' : 'Test failed'}</strong> for “{result.connection.label}”: {result.message}
      {result.http_status !== null && <> · HTTP {result.http_status}</>} · {result.latency_ms.toFixed(0)} ms · status {result.status}
    </div>
  );
}
