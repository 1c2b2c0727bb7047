import { z } from 'zod';
import type { Message } from '@lore/platform/kernel';

/**
 * A parked event as services report it (see `ParkedEvent` in platform/projections): ids,
 * names, times, the error's name and message; never the event's data.
 */
export const ParkedEventRecord = z.object({
  id: z.string(),
  processor: z.string(),
  streamId: z.string(),
  eventId: z.string(),
  position: z.string(),
  eventType: z.string(),
  workspaceId: z.string().nullable(),
  reason: z.enum(['failed', 'waiting-behind']),
  blockedBy: z.string().nullable(),
  error: z.string().nullable(),
  attempts: z.number().int(),
  firstFailedAt: z.string(),
  lastFailedAt: z.string(),
});
export type ParkedEventRecord = z.infer<typeof ParkedEventRecord>;

/** Absent workspace: every workspace (trusted callers on the transport: the `parked` tool); the gateway always names the caller's. */
const ParkedScope = z.object({ workspaceId: z.string().min(1).optional(), processor: z.string().min(1).optional() });

/** `<context>.admin.parked.list`: the context's parked events, in log order. */
export const parkedEventsListMessage = (context: string) =>
  ({ subject: `${context}.admin.parked.list`, request: ParkedScope, reply: z.object({ items: z.array(ParkedEventRecord) }) }) satisfies Message;

/**
 * `<context>.admin.parked.retry`: retries one record's stream (`id`) or every stream the scope
 * selects. `found` is false when `id` names no record of this context in the scope.
 */
export const parkedEventsRetryMessage = (context: string) =>
  ({
    subject: `${context}.admin.parked.retry`,
    request: ParkedScope.extend({ id: z.string().min(1).max(100).optional() }),
    reply: z.object({ found: z.boolean(), applied: z.number().int(), failed: z.array(ParkedEventRecord) }),
  }) satisfies Message;

/** A stream whose stored history is not the one that was appended (see `verifyStreamChain`). */
export const BrokenStreamRecord = z.object({ streamId: z.string(), firstBadRevision: z.number().int(), reason: z.string() });
export type BrokenStreamRecord = z.infer<typeof BrokenStreamRecord>;

/** Most streams one context checks for one request; the default when the caller names none. */
export const AUDIT_VERIFY_MAX_STREAMS = 1000;
export const AUDIT_VERIFY_DEFAULT_STREAMS = 200;

/**
 * `<context>.admin.audit.verify`: checks the hash chains of one workspace's streams in this
 * context, found from its read models (never another workspace's), at most `maxStreams`
 * of them and within the context's time bound; `nextCursor` continues where it stopped.
 * Counts, stream ids and reasons only: never an event's data.
 */
export const auditVerifyMessage = (context: string) =>
  ({
    subject: `${context}.admin.audit.verify`,
    request: z.object({
      workspaceId: z.string().min(1),
      maxStreams: z.number().int().min(1).max(AUDIT_VERIFY_MAX_STREAMS),
      cursor: z.string().min(1).max(2000).optional(),
    }),
    reply: z.object({
      streams: z.number().int().describe('Streams checked (deleted ones included)'),
      events: z.number().int(),
      unchained: z.number().int().describe('Events written before the hash chain existed'),
      unchainedStreams: z.number().int(),
      deleted: z.number().int().describe('Streams the read models still name whose events are gone (deleted or erased)'),
      broken: z.array(BrokenStreamRecord),
      nextCursor: z.string().nullable(),
    }),
  }) satisfies Message;
