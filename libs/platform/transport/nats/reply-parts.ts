import { createInbox, headers, type Msg, type MsgHdrs, type NatsConnection } from 'nats';
import { AppError } from '@lore/platform/kernel';

/**
 * Replies larger than the NATS server's `max_payload` (1 MiB by default), sent in parts, paced
 * by the requester.
 *
 * A Lore requester says it can put parts together (`Lore-Reply-Parts: acked`); the responder
 * then sends a reply over the limit as consecutive messages to the reply subject, each holding
 * the next slice of the encoded packet and `Lore-Part: <n>/<count>`, the first also naming
 * where the requester acknowledges parts (`Lore-Part-Ack`, the highest part it has, as text).
 * At most WINDOW_BYTES are unacknowledged at a time: a large reply never piles up in the NATS
 * server beyond that, which closes a client (the gateway: one connection for every reply) with
 * more than its `max_pending` (64 MB by default) waiting. One connection's messages reach a subscriber in the
 * order they were published, so the parts arrive in order; a gap fails the request at once
 * rather than at its timeout. A requester that did not ask (a stock @nestjs/microservices
 * client) gets the `too_large` failure: its wire format has no parts.
 */
export const ACCEPT_PARTS_HEADER = 'Lore-Reply-Parts';
export const PART_HEADER = 'Lore-Part';
export const PART_ACK_HEADER = 'Lore-Part-Ack';
/** `acked`: the requester acknowledges each part (`accept`, without acknowledgements, was this protocol's first version). */
const ACCEPT_VALUE = 'acked';

/** The largest reply sent in parts: the requester holds the whole while it answers (the bytes, then the JSON). */
export const MAX_PARTED_REPLY_BYTES = 64 * 1024 * 1024;
/** Bytes sent ahead of the requester's acknowledgements, per reply (at least one part): four parts at the default max_payload. */
export const WINDOW_BYTES = 4 * 1024 * 1024;
/** How long a responder waits for an acknowledgement before it gives the reply up (the requester is gone). */
const ACK_TIMEOUT_MS = 30_000;

/** Reads an acknowledgement: the highest part received, as decimal text. */
const ACK_TEXT = new TextDecoder();

/** Room left in each part for the headers, which count against `max_payload` too. */
const HEADER_ROOM = 1024;

export function acceptParts(hdrs: MsgHdrs): void {
  hdrs.set(ACCEPT_PARTS_HEADER, ACCEPT_VALUE);
}

/** Whether the requester can put a reply in parts back together. */
export function acceptsParts(msg: Msg): boolean {
  return msg.headers?.get(ACCEPT_PARTS_HEADER) === ACCEPT_VALUE;
}

/** A reply being sent in parts: what is left to send, and until when the requester may be silent. */
interface Outgoing {
  readonly msg: Msg;
  readonly body: Uint8Array;
  readonly size: number;
  readonly count: number;
  /** Parts in flight at most: WINDOW_BYTES' worth. */
  readonly window: number;
  next: number;
  /** The highest part the requester has acknowledged (acknowledgements are cumulative: a lost one costs nothing). */
  acked: number;
  timer: NodeJS.Timeout;
  readonly done: () => void;
  /** Tells the requester the reply is given up, so it fails at once rather than at its timeout. */
  readonly giveUp: () => void;
}

/**
 * A connection's replies in parts: one subscription receives every acknowledgement, matched to
 * its reply by the subject's last token.
 */
export class PartedReplies {
  private readonly inbox = createInbox();
  private readonly outgoing = new Map<string, Outgoing>();
  private sequence = 0;
  private subscribed = false;
  private closed = false;

  constructor(
    private readonly nc: NatsConnection,
    private readonly report: (error: unknown) => void,
  ) {}

  /**
   * Sends `body` in parts of at most `maxPayload` bytes (headers included), WINDOW_BYTES ahead
   * of the acknowledgements; resolves once the last part is sent, or once the requester has
   * stopped acknowledging for ACK_TIMEOUT_MS (then `giveUp` tells it, should it still wait).
   * Throws `too_large` over MAX_PARTED_REPLY_BYTES, before sending anything, and `unavailable`
   * once closed.
   */
  send(msg: Msg, body: Uint8Array, maxPayload: number, giveUp: () => void): Promise<void> {
    if (this.closed) throw new AppError('unavailable', 'the service is shutting down');
    if (body.length > MAX_PARTED_REPLY_BYTES) {
      throw new AppError('too_large', `the reply is ${body.length} bytes, over the ${MAX_PARTED_REPLY_BYTES} bytes a reply between Lore's services may take`);
    }
    // A server configured with a max_payload this small carries no parts worth sending.
    const size = maxPayload - HEADER_ROOM;
    if (size < HEADER_ROOM) throw new AppError('too_large', `the reply is ${body.length} bytes, over the NATS server's max_payload of ${maxPayload}`);
    this.listen();
    const token = String(++this.sequence);
    return new Promise<void>((resolve) => {
      const window = Math.max(1, Math.floor(WINDOW_BYTES / size));
      const reply: Outgoing = { msg, body, size, count: Math.ceil(body.length / size), window, next: 1, acked: 0, timer: this.giveUpLater(token), done: resolve, giveUp };
      this.outgoing.set(token, reply);
      this.sendWindow(token, reply);
    });
  }

  /** Gives up every reply still being sent, and refuses new ones (the connection is closing). */
  close(): void {
    this.closed = true;
    for (const token of [...this.outgoing.keys()]) this.abandon(token);
  }

  private listen(): void {
    if (this.subscribed) return;
    this.subscribed = true;
    this.nc.subscribe(`${this.inbox}.*`, {
      callback: (error, ack) => {
        if (error) return this.report(error);
        const token = ack.subject.slice(this.inbox.length + 1);
        const reply = this.outgoing.get(token);
        // Late: the reply was sent in full or given up.
        if (reply === undefined) return;
        const acked = Number(ACK_TEXT.decode(ack.data));
        if (!Number.isInteger(acked) || acked <= reply.acked) return;
        reply.acked = Math.min(acked, reply.count);
        clearTimeout(reply.timer);
        reply.timer = this.giveUpLater(token);
        this.sendWindow(token, reply);
      },
    });
  }

  /** Sends what the window allows past the last acknowledged part. */
  private sendWindow(token: string, reply: Outgoing): void {
    while (reply.next <= reply.count && reply.next <= reply.acked + reply.window && this.outgoing.has(token)) this.sendNext(token, reply);
  }

  private sendNext(token: string, reply: Outgoing): void {
    const n = reply.next++;
    const hdrs = headers();
    hdrs.set(PART_HEADER, `${n}/${reply.count}`);
    if (n === 1) hdrs.set(PART_ACK_HEADER, `${this.inbox}.${token}`);
    try {
      reply.msg.respond(reply.body.subarray((n - 1) * reply.size, n * reply.size), { headers: hdrs });
    } catch (error) {
      // The connection closed in mid-reply: the requester's wait ends with its own connection's or its timer.
      this.report(error);
      this.finish(token);
      return;
    }
    if (n === reply.count) this.finish(token);
  }

  private giveUpLater(token: string): NodeJS.Timeout {
    const timer = setTimeout(() => this.abandon(token), ACK_TIMEOUT_MS);
    timer.unref();
    return timer;
  }

  /** Stops sending a reply before its end: the requester, if still there, is told. */
  private abandon(token: string): void {
    const reply = this.outgoing.get(token);
    if (reply === undefined) return;
    this.finish(token);
    try {
      reply.giveUp();
    } catch (error) {
      this.report(error);
    }
  }

  private finish(token: string): void {
    const reply = this.outgoing.get(token);
    if (reply === undefined) return;
    this.outgoing.delete(token);
    clearTimeout(reply.timer);
    reply.done();
  }
}

/**
 * One request's reply, put back together: `add` returns a whole reply's bytes (a reply sent in
 * one message as it came), or undefined while parts are still to come, acknowledging each part
 * that has more after it through `acknowledge` (the subject the first part named).
 */
export class ReplyAssembly {
  private parts: Uint8Array[] = [];
  private bytes = 0;
  private ackSubject: string | undefined;

  constructor(
    private readonly subject: string,
    private readonly acknowledge: (subject: string, part: number) => void,
  ) {}

  add(reply: Msg): Uint8Array | undefined {
    const part = reply.headers?.get(PART_HEADER);
    if (!part) return reply.data;
    const match = /^(\d+)\/(\d+)$/.exec(part);
    const n = Number(match?.[1]);
    const count = Number(match?.[2]);
    if (match === null || n !== this.parts.length + 1 || n > count) {
      throw new AppError('unavailable', `the reply on ${this.subject} lost a part (got ${part} after ${this.parts.length})`);
    }
    if (n === 1) this.ackSubject = reply.headers?.get(PART_ACK_HEADER) || undefined;
    this.bytes += reply.data.length;
    if (this.bytes > MAX_PARTED_REPLY_BYTES) throw new AppError('too_large', `the reply is over the ${MAX_PARTED_REPLY_BYTES} bytes a reply between Lore's services may take`);
    this.parts.push(reply.data);
    if (n < count) {
      // Parts up to n taken (cumulative, so a lost acknowledgement is made good by the next): the responder keeps a window in flight.
      if (this.ackSubject === undefined) throw new AppError('unavailable', `the reply on ${this.subject} names no subject for its acknowledgements`);
      this.acknowledge(this.ackSubject, n);
      return undefined;
    }
    const whole = Buffer.concat(this.parts, this.bytes);
    this.parts = [];
    this.bytes = 0;
    return whole;
  }
}
