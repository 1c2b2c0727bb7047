import type { MsgHdrs } from 'nats';
import { AppError } from '@lore/platform/kernel';

/**
 * NATS refuses messages over the server's `max_payload` (1 MiB by default): say so as a 413
 * the caller can act on, instead of a dropped connection. Callers that move large data
 * (content uploads, chunk pages) split it into messages below the limit.
 */
export function assertFits(data: Uint8Array, maxPayload: number | undefined, what: string, hdrs?: MsgHdrs): void {
  if (maxPayload === undefined || data.length + HEADER_ALLOWANCE <= maxPayload) return;
  // Near the limit only (headers are encoded again when sent): NATS counts them against max_payload too.
  const headerLength = hdrs === undefined ? 0 : (hdrs as MsgHdrs & { encode(): Uint8Array }).encode().length;
  if (data.length + headerLength > maxPayload) {
    const size = headerLength === 0 ? `${data.length} bytes` : `${data.length} bytes and ${headerLength} of headers`;
    throw new AppError('too_large', `${what} is ${size}, over the NATS server's max_payload of ${maxPayload}`);
  }
}

/** More than Lore's request headers take (ids, timeout, trace context); larger ones still meet the client's own check. */
const HEADER_ALLOWANCE = 8192;
