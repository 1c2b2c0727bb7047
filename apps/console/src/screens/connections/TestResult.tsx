import type { ReplyOf } from '@lore/client';

/** What a connection test found: passed or not, the API's message, what the integration answered and how long it took. */
export function TestResult({ result }: { result: ReplyOf<'test_connection'> }) {
  return (
    <div role="status" className={result.success ? 'banner info' : 'banner error'} data-testid="test-result">
      <p>
        <strong>{result.success ? 'Test passed' : 'Test failed'}</strong> for “{result.connection.label}”: {result.message}
      </p>
      <p className="small">
        {result.http_status === null ? 'No HTTP answer' : `HTTP ${result.http_status}`} · {result.latency_ms.toFixed(0)} ms · status {result.status}
        {result.token_refreshed ? ' · access token refreshed' : ''}
      </p>
    </div>
  );
}
