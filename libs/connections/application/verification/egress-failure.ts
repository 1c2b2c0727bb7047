/**
 * How a request the egress did not (completely) make is told to the user. The egress port
 * promises its refusal messages name the host and never headers, bodies or query strings; they
 * are still masked by the callers, like every other message of this folder.
 */
import { EgressRefused } from '@lore/platform/egress/port';

export const DEFAULT_TIMEOUT_MS = 10_000;

export function describeEgressFailure(error: unknown, timeoutMs: number): string {
  if (error instanceof EgressRefused) {
    // The adapter's own timeout text names the phase; the user set (or got) one deadline, so that is what is told.
    if (error.reason === 'timeout') return `timed out after ${timeoutMs} ms`;
    if (error.reason === 'unreachable' || /^refused\b/.test(error.message)) return error.message;
    return `refused: ${error.message}`;
  }
  // Not a refusal: a fault of the adapter. Its message is kept (masked by the caller) for the operator.
  return `request failed: ${error instanceof Error ? error.message : String(error)}`;
}

/** The host a URL names, for messages ("HTTP 401 from api.example.com"); never the path or query, where secrets may travel. */
export function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'the server';
  }
}
