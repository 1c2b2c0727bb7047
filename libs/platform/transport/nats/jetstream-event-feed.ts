import { AckPolicy, DeliverPolicy, connect, nanos, type JetStreamManager, type Msg, type NatsConnection } from 'nats';
import { natsConnectionOptions } from './connection-options';
import {
  INTEGRATION_EVENTS_TOKEN,
  selectsEveryType,
  selectsType,
  StoredFeedEntry,
  workspaceToken,
  type EventFeed,
  type FeedBounds,
  type FeedEntry,
  type FeedPage,
  type FeedSelector,
  type FollowOptions,
} from '@lore/platform/transport/port';
import { storedEvent } from './stored-event';
import { eventStreamName } from './event-stream';
import { pullPages } from './pull-pages';

/**
 * The distributed event feed: the JetStream stream the NATS transport publishes integration
 * events to, read from a stream sequence (the position) by an ephemeral pull consumer per
 * reader: no acks (the reader keeps its own position), in memory, removed by the server once
 * idle, and pulled in pages by `pullPages` (our own pull protocol, not nats.js's consume():
 * see there). Connects on first use, so a process that never reads it holds no connection.
 */
export interface JetStreamEventFeedOptions {
  readonly url: string;
  readonly subjectPrefix: string;
  readonly name?: string;
}

/** Messages pulled ahead of the reader: bounds what a slow reader holds in memory. */
const BATCH = 1024;
/** A reader that vanished without closing (its process died) leaves a consumer the server drops after this. */
const IDLE_CONSUMER_MS = 60_000;

export function jetStreamEventFeed(options: JetStreamEventFeedOptions): EventFeed {
  let connection: Promise<NatsConnection> | undefined;
  const nats = (): Promise<NatsConnection> =>
    (connection ??= connect(natsConnectionOptions(options.url, options.name)));
  // Created once: each creation asks the server for the account's JetStream info.
  let manager: Promise<JetStreamManager> | undefined;
  const jetStreamManager = (): Promise<JetStreamManager> => (manager ??= nats().then((nc) => nc.jetstreamManager()));
  const stream = eventStreamName(options.subjectPrefix);

  return {
    async *follow({ after, selector, signal }: FollowOptions): AsyncGenerator<FeedPage> {
      if (signal.aborted) return;
      const nc = await nats();
      const jsm = await jetStreamManager();
      const created = await jsm.consumers.add(stream, {
        ack_policy: AckPolicy.None,
        filter_subject: filterSubject(options.subjectPrefix, selector),
        ...(after > 0 ? { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: after + 1 } : { deliver_policy: DeliverPolicy.All }),
        mem_storage: true,
        inactive_threshold: nanos(IDLE_CONSUMER_MS),
      });
      // Selected by subject (`<prefix>.events.<context>.<type>.<workspace token>`, made from the
      // event when it was published): the workspace token is exact in the consumer's filter and
      // checked again here, the type decides the rest (read from the subject only when the
      // selection narrows by type or context). The event is never parsed.
      const tokens = options.subjectPrefix.length + INTEGRATION_EVENTS_TOKEN.length + 2;
      const workspace = selector.workspaceId === null ? null : `.${workspaceToken(selector.workspaceId)}`;
      const everyType = selectsEveryType(selector);
      const take = (message: Msg, position: number): FeedEntry | undefined => {
        const subject = message.subject;
        if (workspace !== null && !subject.endsWith(workspace)) return undefined;
        if (!everyType) {
          const [context, type] = subject.slice(tokens).split('.', 2);
          if (!selectsType(selector, `${context ?? ''}.${type ?? ''}`)) return undefined;
        }
        const stored = storedEvent(message.data, subject);
        return stored === undefined ? undefined : new StoredFeedEntry(position, stored);
      };
      try {
        yield* pullPages({ nc, stream, consumer: created.name, batch: BATCH, signal, take });
      } finally {
        await jsm.consumers.delete(stream, created.name).catch(() => undefined);
      }
    },

    async bounds(): Promise<FeedBounds> {
      const info = await (await jetStreamManager()).streams.info(stream);
      return { first: info.state.first_seq, last: info.state.last_seq };
    },

    async close(): Promise<void> {
      if (connection === undefined) return;
      const nc = await connection.catch(() => undefined);
      await nc?.close();
    },
  };
}

/**
 * One subject filter (servers before 2.10 take one per consumer): exact where the selection
 * names a single type or context, the workspace's whole token otherwise; `selectsType` decides.
 */
function filterSubject(prefix: string, selector: FeedSelector): string {
  const workspace = selector.workspaceId === null ? '*' : workspaceToken(selector.workspaceId);
  const contexts = selector.contexts ?? [];
  const types = selector.types ?? [];
  let contextAndType = '*.*';
  if (types.length === 1 && contexts.length === 0) contextAndType = types[0] ?? '*.*';
  else if (contexts.length === 1 && types.length === 0) contextAndType = `${contexts[0] ?? '*'}.*`;
  return `${prefix}.${INTEGRATION_EVENTS_TOKEN}.${contextAndType}.${workspace}`;
}
