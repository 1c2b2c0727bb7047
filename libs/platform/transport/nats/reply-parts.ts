import { headers, type Msg, type MsgHdrs } from 'nats';
import { AppError } from '@lore/platform/kernel';

/**
 * Replies larger than the NATS server's `max_payload` (1 MiB by default), sent in parts.
 *
 * A Lore requester says it can put parts together (`Lore-Reply-Parts: accept`); the responder
 * then sends a reply over the limit as consecutive messages to the reply subject, each holding
 * the next slice of the encoded packet and `Lore-Part: <n>/<count>`. One connection's messages
 * reach a subscriber in the order they were published, so the parts arrive in order; a gap (the
 * responder reconnected in mid-reply) fails the request at once rather than at its timeout. A
 * requester that did not ask (a stock @nestjs/microservices client) gets the `too_large`
 * failure as before: its wire format has no parts.
 */
export const ACCEPT_PARTS_HEADER = 'Lore-Reply-Parts';
export const PART_HEADER = 'Lore-Part';

/**
 * The largest reply sent in parts. The parts go out at once, and the NATS server closes a
 * client's connection when more than its `max_pending` (64 MB by default) waits for it: the
 * requester (the gateway, one connection for every reply) must be able to take a few such
 * replies at a time. It also holds each whole while it answers (the bytes, then the JSON).
 */
export const MAX_PARTED_REPLY_BYTES = 16 * 1024 * 1024;

/** Room left in each part for the headers, which count against `max_payload` too. */
const HEADER_ROOM = 1024;

export function acceptParts(hdrs: MsgHdrs): void {
  hdrs.set(ACCEPT_PARTS_HEADER, 'accept');
}

/** Whether the requester can put a reply in parts back together. */
export function acceptsParts(msg: Msg): boolean {
  return msg.headers?.get(ACCEPT_PARTS_HEADER) === 'accept';
}

/** Sends `body` as consecutive parts of at most `maxPayload` bytes (headers included); too_large over MAX_PARTED_REPLY_BYTES. */
export function respondInParts(msg: Msg, body: Uint8Array, maxPayload: number): void {
  if (body.length > MAX_PARTED_REPLY_BYTES) {
    throw new AppError('too_large', `the reply on ${msg.subject} is ${body.length} bytes, over the ${MAX_PARTED_REPLY_BYTES} bytes a reply may take in parts`);
  }
  // A server configured with a max_payload this small carries no parts worth sending.
  const size = maxPayload - HEADER_ROOM;
  if (size < HEADER_ROOM) throw new AppError('too_large', `the reply on ${msg.subject} is ${body.length} bytes, over the NATS server's max_payload of ${maxPayload}`);
  const count = Math.ceil(body.length / size);
  for (let n = 1; n <= count; n++) {
    const hdrs = headers();
    hdrs.set(PART_HEADER, `${n}/${count}`);
    msg.respond(body.subarray((n - 1) * size, n * size), { headers: hdrs });
  }
}

/**
 * One request's reply, put back together: `add` returns a whole reply's bytes (a reply sent in
 * one message as it came), or undefined while parts are still to come.
 */
export class ReplyAssembly {
  private parts: Uint8Array[] = [];
  private bytes = 0;

  constructor(private readonly subject: string) {}

  add(reply: Msg): Uint8Array | undefined {
    const part = reply.headers?.get(PART_HEADER);
    if (!part) return reply.data;
    const match = /^(\d+)\/(\d+)$/.exec(part);
    const n = Number(match?.[1]);
    const count = Number(match?.[2]);
    if (match === null || n !== this.parts.length + 1 || n > count) {
      throw new AppError('unavailable', `the reply on ${this.subject} lost a part (got ${part} after ${this.parts.length})`);
    }
    this.bytes += reply.data.length;
    if (this.bytes > MAX_PARTED_REPLY_BYTES) throw new AppError('too_large', `the reply on ${this.subject} is over ${MAX_PARTED_REPLY_BYTES} bytes`);
    this.parts.push(reply.data);
    if (n < count) return undefined;
    const whole = Buffer.concat(this.parts, this.bytes);
    this.parts = [];
    this.bytes = 0;
    return whole;
  }
}
