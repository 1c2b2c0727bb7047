import { INTEGRATION_EVENTS_TOKEN } from '@lore/platform/transport/port';
import {
  DiscardPolicy,
  ErrorCode,
  RetentionPolicy,
  StorageType,
  nanos,
  type JetStreamManager,
  type MsgHdrs,
  type NatsConnection,
  type StreamConfig,
  type StreamInfo,
} from 'nats';

/**
 * The JetStream stream that keeps integration events for downstream consumers: a consumer
 * that was down resumes from its durable state instead of missing events for good.
 */
export interface EventStreamOptions {
  /** The deployment's subject prefix (`NATS_SUBJECT_PREFIX`): the stream takes `<prefix>.events.>`. */
  readonly subjectPrefix: string;
  /** How long events stay (`EVENTS_STREAM_MAX_AGE_HOURS`); consumers away longer miss the oldest. */
  readonly maxAgeHours?: number;
}

export const DEFAULT_EVENTS_MAX_AGE_HOURS = 7 * 24;
/**
 * Publishes carrying the same `Nats-Msg-Id` (the event id) within this window are stored
 * once: it covers a reactor retrying after a lost ack or a restart. An older republish
 * (a rebuilt checkpoint) is stored again, and consumers de-duplicate it by `event_id`.
 */
export const EVENTS_DUPLICATE_WINDOW_MS = 2 * 60_000;

/** `lore` → `LORE_EVENTS`. */
export const eventStreamName = (subjectPrefix: string): string => `${subjectPrefix.toUpperCase()}_EVENTS`;
export const eventStreamSubject = (subjectPrefix: string): string => `${subjectPrefix}.${INTEGRATION_EVENTS_TOKEN}.>`;

export function eventStreamConfig(options: EventStreamOptions): Partial<StreamConfig> & { name: string; subjects: string[] } {
  return {
    name: eventStreamName(options.subjectPrefix),
    subjects: [eventStreamSubject(options.subjectPrefix)],
    storage: StorageType.File,
    // Limits, not work-queue or interest: any number of consumers read at their own pace.
    retention: RetentionPolicy.Limits,
    discard: DiscardPolicy.Old,
    max_age: nanos((options.maxAgeHours ?? DEFAULT_EVENTS_MAX_AGE_HOURS) * 3_600_000),
    duplicate_window: nanos(EVENTS_DUPLICATE_WINDOW_MS),
  };
}

/**
 * Creates the stream, or updates it when its settings differ from ours; idempotent, and
 * safe when several processes of one deployment start at once (a lost create race re-reads).
 */
export async function ensureEventStream(jsm: JetStreamManager, options: EventStreamOptions): Promise<StreamInfo> {
  const wanted = eventStreamConfig(options);
  for (let attempt = 1; ; attempt++) {
    const existing = await streamInfo(jsm, wanted.name);
    try {
      if (existing === undefined) return await jsm.streams.add(wanted);
      const current = existing.config;
      // Prefixes that differ only by case share a name: never take another deployment's stream.
      if (current.subjects.join() !== wanted.subjects.join()) {
        throw new Error(`JetStream stream ${wanted.name} holds ${current.subjects.join(', ')}, not ${wanted.subjects.join()}: another deployment's? Choose another NATS_SUBJECT_PREFIX`);
      }
      const differs = (Object.keys(wanted) as Array<keyof typeof wanted>).some((key) => JSON.stringify(current[key]) !== JSON.stringify(wanted[key]));
      return differs ? await jsm.streams.update(wanted.name, { ...current, ...wanted }) : existing;
    } catch (error) {
      if (existing !== undefined || attempt >= 3) throw error;
      // Another process created it between our read and our create: read it again.
    }
  }
}

async function streamInfo(jsm: JetStreamManager, name: string): Promise<StreamInfo | undefined> {
  try {
    return await jsm.streams.info(name);
  } catch (error) {
    if (isStreamNotFound(error)) return undefined;
    throw error;
  }
}

function isStreamNotFound(error: unknown): boolean {
  const apiError = typeof error === 'object' && error !== null ? (error as { api_error?: { err_code?: number } }).api_error : undefined;
  return apiError?.err_code === 10059;
}

export interface EventStream {
  /** `<prefix>.events.>`: subjects published here are stored, not fired and forgotten. */
  readonly subject: string;
  /** Resolves once JetStream acknowledged (or recognised a duplicate of) the message. */
  publish(subject: string, data: Uint8Array, headers: MsgHdrs | undefined, messageId: string | undefined): Promise<void>;
}

export async function openEventStream(nc: NatsConnection, options: EventStreamOptions): Promise<EventStream> {
  const jsm = await nc.jetstreamManager();
  await ensureEventStream(jsm, options);
  const js = nc.jetstream();
  return {
    subject: eventStreamSubject(options.subjectPrefix),
    async publish(subject, data, headers, messageId) {
      const publishOptions = { ...(messageId === undefined ? {} : { msgID: messageId }), ...(headers === undefined ? {} : { headers }) };
      try {
        await js.publish(subject, data, publishOptions);
      } catch (error) {
        // No stream answers: it was deleted or JetStream lost its store. Recreate, then retry once.
        if ((error as { code?: unknown } | null)?.code !== ErrorCode.NoResponders) throw error;
        await ensureEventStream(jsm, options);
        await js.publish(subject, data, publishOptions);
      }
    },
  };
}
