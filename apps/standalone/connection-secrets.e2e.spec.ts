import { runKillProbe } from './kill-probe';

/**
 * Credential secrets against a scan of DATA_DIR and every log line (LOG_LEVEL=trace), kill -9
 * included: tools/probes/connection-secrets.mjs creates, tests, refreshes, rotates and deletes
 * connections with distinctive secrets, cuts bursts of those writes with SIGKILL, restarts, and
 * scans. It exits non-zero when a secret is found or an acknowledged connection was lost.
 */
describe('connection secrets on disk and in logs', () => {
  it('finds no secret in DATA_DIR or the logs, and loses no acknowledged connection', async () => {
    const output = await runKillProbe('tools/probes/connection-secrets.mjs', { PROBE_ROUNDS: '2' }, 120_000);
    expect(JSON.parse(output.split('\n')[0] ?? '{}')).toMatchObject({ flows: { refreshed: true }, lost: 0, secretsFound: 0 });
  }, 150_000);
});
