import { ErrorCode, NatsError, createInbox, type Msg, type MsgHdrs, type NatsConnection } from 'nats';

/** What a request makes of one reply: `done` settles it with `value`; undefined waits for more. */
export type ReplyStep<T> = { readonly done: true; readonly value: T } | undefined;

export interface ReplyInbox {
  /**
   * Publishes `data` on `subject` with this inbox as reply subject and hands each reply to
   * `read` until it settles the request (or throws: the request rejects with that). Rejects
   * with nats.js's error codes: NoResponders, Timeout after `timeoutMs`, ConnectionClosed.
   */
  request<T>(subject: string, data: Uint8Array, headers: MsgHdrs, timeoutMs: number, read: (reply: Msg) => ReplyStep<T>): Promise<T>;
}

interface Pending {
  readonly read: (reply: Msg) => ReplyStep<unknown>;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
  readonly timer: NodeJS.Timeout;
}

/**
 * The replies to a connection's requests, on one wildcard subscription matched by token, as
 * nats.js's own request multiplexing does, without what that costs per request in a busy
 * gateway: an async iterator, several promises and a captured stack for each. A request ends
 * when its last packet arrives, its time runs out or the connection closes.
 */
export function replyInbox(nc: NatsConnection, report: (error: unknown) => void): ReplyInbox {
  const inbox = createInbox();
  const tokenStart = inbox.length + 1;
  const pending = new Map<string, Pending>();
  let sequence = 0;
  const settle = (token: string): Pending | undefined => {
    const request = pending.get(token);
    if (request === undefined) return undefined;
    pending.delete(token);
    clearTimeout(request.timer);
    return request;
  };

  nc.subscribe(`${inbox}.*`, {
    callback: (error, msg) => {
      if (error) return report(error);
      const token = msg.subject.slice(tokenStart);
      const request = pending.get(token);
      // Late: the request timed out or already settled.
      if (request === undefined) return;
      // The server's status for a request nobody subscribes to: no payload, code 503.
      if (msg.data.length === 0 && msg.headers?.code === 503) {
        settle(token)?.reject(NatsError.errorForCode(ErrorCode.NoResponders));
        return;
      }
      try {
        const step = request.read(msg);
        if (step !== undefined) settle(token)?.resolve(step.value);
      } catch (failure) {
        settle(token)?.reject(failure);
      }
    },
  });
  void nc.closed().then(() => {
    for (const token of [...pending.keys()]) settle(token)?.reject(NatsError.errorForCode(ErrorCode.ConnectionClosed));
  });

  return {
    request<T>(subject: string, data: Uint8Array, headers: MsgHdrs, timeoutMs: number, read: (reply: Msg) => ReplyStep<T>): Promise<T> {
      const token = String(++sequence);
      return new Promise<T>((resolve, reject) => {
        const timer = setTimeout(() => settle(token)?.reject(NatsError.errorForCode(ErrorCode.Timeout)), timeoutMs);
        pending.set(token, { read, resolve: resolve as (value: unknown) => void, reject, timer });
        try {
          nc.publish(subject, data, { reply: `${inbox}.${token}`, headers });
        } catch (error) {
          settle(token);
          reject(error);
        }
      });
    },
  };
}
