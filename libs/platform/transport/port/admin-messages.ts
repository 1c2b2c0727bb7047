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
