import { createInbox, type Msg, type NatsConnection } from 'nats';

/**
 * Reads a JetStream pull consumer in pages, with a pull protocol of our own instead of
 * nats.js's `consume()`: its async iterator costs a JsMsg, a promise and an iterator step per
 * message (each promise paying for the async hooks of a process with AsyncLocalStorage: half
 * the gateway's work in a catch-up), and its callback form pulls on regardless of the reader.
 * Here the messages are taken in the subscription's callback, in the turn their socket read
 * arrived in, into the page the reader takes next: one promise per page.
 *
 * Pull-based as before: at most `batch` messages are asked for and not yet taken (requested
 * from the server, or received and held for the reader), so a reader that does not come back
 * for its page (its client's socket has not drained) stops the pulls. Messages `take` drops
 * hold nothing, and make room for more.
 *
 * A pull that waits is kept alive by the server's idle heartbeats; when neither a message nor
 * a heartbeat arrives for a while although a pull is open (the consumer, or the connection's
 * state on the server, was lost), the iteration fails, and its reader resumes from the last
 * position it handed out (an SSE client with its Last-Event-ID, the webhook dispatcher from
 * its checkpoint). So does a consumer deleted, or a status the server answers a bad pull with.
 */
export interface PullPagesOptions<T> {
  readonly nc: NatsConnection;
  readonly stream: string;
  readonly consumer: string;
  /** Messages asked for and not yet taken by the reader, at most. */
  readonly batch: number;
  readonly signal: AbortSignal;
  /** What a message becomes in a page, or undefined to drop it; runs in the subscription's callback. */
  readonly take: (message: Msg, streamSequence: number) => T | undefined;
  /** How long one pull waits for messages (the server then ends it; another is sent). */
  readonly expiresMs?: number;
  /** How often the server says a waiting pull is alive. */
  readonly heartbeatMs?: number;
}

const EXPIRES_MS = 30_000;
const HEARTBEAT_MS = 5_000;
/** Heartbeat intervals without a word from the server, while a pull is open, before giving up. */
const SILENT_INTERVALS = 3;
const PENDING_MESSAGES = 'Nats-Pending-Messages';
const encoder = new TextEncoder();

export async function* pullPages<T>(options: PullPagesOptions<T>): AsyncGenerator<T[]> {
  const { nc, batch, signal, take } = options;
  const expiresMs = options.expiresMs ?? EXPIRES_MS;
  const heartbeatMs = options.heartbeatMs ?? HEARTBEAT_MS;
  const inbox = createInbox();
  const nextSubject = `$JS.API.CONSUMER.MSG.NEXT.${options.stream}.${options.consumer}`;
  const ackPrefix = `$JS.ACK.${options.stream}.${options.consumer}.`;
  let page: T[] = [];
  /** Messages asked for that the server has neither sent nor given up on (an expired pull's rest). */
  let owed = 0;
  /** Anything heard from the server: the silence check compares it between its ticks. */
  let heard = 0;
  let failure: Error | undefined;
  let wake: (() => void) | undefined;
  const notify = (): void => {
    const resolve = wake;
    wake = undefined;
    resolve?.();
  };
  const fail = (error: Error): void => {
    failure ??= error;
    notify();
  };

  // Asks for what fits under `batch`, once at least half of it does: a pull per half batch.
  const refill = (): void => {
    const room = batch - owed - page.length;
    if (room < batch / 2 || failure !== undefined || signal.aborted) return;
    owed += room;
    try {
      const request = { batch: room, expires: expiresMs * 1_000_000, idle_heartbeat: heartbeatMs * 1_000_000 };
      nc.publish(nextSubject, encoder.encode(JSON.stringify(request)), { reply: inbox });
    } catch (error) {
      fail(error instanceof Error ? error : new Error(String(error)));
    }
  };

  // A status on the inbox: a heartbeat, a pull ended (its rest is no longer owed), or a failure.
  const status = (message: Msg): void => {
    const headers = message.headers;
    const code = headers?.code ?? 0;
    if (code === 100) return;
    const description = headers?.description ?? '';
    if (code === 400 || code === 503 || (code === 409 && /consumer deleted/i.test(description))) {
      fail(new Error(`JetStream pull of ${options.stream}/${options.consumer} failed: ${code} ${code === 503 ? 'no responders (the consumer or stream is gone)' : description}`));
      return;
    }
    // Otherwise (408: it expired; 409: the server gave it up) its rest is no longer owed.
    const rest = Number(headers?.get(PENDING_MESSAGES) ?? 0);
    if (rest > 0) {
      owed = Math.max(0, owed - rest);
      refill();
    }
  };

  const subscription = nc.subscribe(inbox, {
    callback: (error, message) => {
      heard++;
      // Nothing after a failure: the reader's position must stay before what it did not get.
      if (failure !== undefined) return;
      if (error !== null) return fail(error);
      if (message.subject === inbox) return status(message);
      owed--;
      const sequence = streamSequence(message.reply ?? '', ackPrefix);
      if (Number.isNaN(sequence)) return fail(new Error(`JetStream pull of ${options.stream}/${options.consumer}: a message without a stream sequence (reply ${message.reply})`));
      let item: T | undefined;
      try {
        item = take(message, sequence);
      } catch (error) {
        // Thrown into nats.js's parser, it would end the connection's reading: the reader's alone fails.
        return fail(error instanceof Error ? error : new Error(String(error)));
      }
      if (item !== undefined) {
        page.push(item);
        if (wake !== undefined) notify();
      }
      // Dropped messages free room without the reader: pull on for it.
      else refill();
    },
  });

  let lastHeard = heard;
  let silent = 0;
  const watch = setInterval(() => {
    if (owed === 0 || heard !== lastHeard) {
      lastHeard = heard;
      silent = 0;
    } else if (++silent >= SILENT_INTERVALS) {
      fail(new Error(`JetStream pull of ${options.stream}/${options.consumer}: no message or heartbeat for ${(silent * heartbeatMs) / 1000} s`));
    }
  }, heartbeatMs);
  watch.unref();
  signal.addEventListener('abort', notify, { once: true });
  try {
    refill();
    for (;;) {
      if (signal.aborted) return;
      if (page.length > 0) {
        const taken = page;
        page = [];
        refill();
        yield taken;
      } else if (failure !== undefined) {
        throw failure;
      } else {
        await new Promise<void>((resolve) => (wake = resolve));
      }
    }
  } finally {
    signal.removeEventListener('abort', notify);
    clearInterval(watch);
    subscription.unsubscribe();
  }
}

/**
 * The stream sequence in a JetStream message's reply subject (its ack subject):
 * `$JS.ACK.<stream>.<consumer>.<delivered>.<stream seq>.<consumer seq>.<time>.<pending>`, or,
 * from servers that add a domain and an account hash after `$JS.ACK`, those two tokens more
 * and a random one at the end. NaN for anything else. `ackPrefix` (`$JS.ACK.<stream>.<consumer>.`,
 * known to the reader) finds it in the usual form without splitting the subject.
 */
export function streamSequence(reply: string, ackPrefix?: string): number {
  if (ackPrefix !== undefined && reply.startsWith(ackPrefix)) {
    const start = reply.indexOf('.', ackPrefix.length) + 1;
    const end = reply.indexOf('.', start);
    if (start > 0 && end > start) return Number(reply.slice(start, end));
  }
  const tokens = reply.split('.');
  if (tokens[0] !== '$JS' || tokens[1] !== 'ACK') return Number.NaN;
  if (tokens.length === 9) return Number(tokens[5]);
  if (tokens.length >= 11) return Number(tokens[7]);
  return Number.NaN;
}
