import { z } from 'zod';
import { notFound } from '@lore/platform/kernel';
import { route, type HttpRoute, type Send } from '@lore/platform/http';
import { parkedEventsListMessage, parkedEventsRetryMessage, type ParkedEventRecord } from '@lore/platform/transport/port';

const ParkedEventView = z.object({
  id: z.string().describe('Record id: retry with it'),
  context: z.string(),
  processor: z.string().describe('The projection or reactor that parked it'),
  stream_id: z.string(),
  event_id: z.string(),
  position: z.string().describe('Global log position (commit:prepare)'),
  event_type: z.string(),
  workspace_id: z.string().nullable(),
  reason: z.enum(['failed', 'waiting-behind']).describe('failed: the processor failed on it; waiting-behind: an earlier event of its stream is parked'),
  blocked_by: z.string().nullable().describe('For waiting-behind: the event id it waits behind'),
  error: z.string().nullable().describe("The error's name and message (truncated)"),
  attempts: z.number().int(),
  first_failed_at: z.string(),
  last_failed_at: z.string(),
});

const RetryReport = z.object({
  applied: z.number().int().describe('Events applied and removed from the parked records'),
  failed: z.array(ParkedEventView).describe('Events that failed again (attempts incremented); those behind them stay parked'),
});

const ListQuery = z.object({ processor: z.string().min(1).max(200).optional() });
const IdParams = z.object({ parked_event_id: z.string().min(1).max(100) });

function view(context: string, r: ParkedEventRecord): z.infer<typeof ParkedEventView> {
  return {
    id: r.id, context, processor: r.processor, stream_id: r.streamId, event_id: r.eventId, position: r.position, event_type: r.eventType, workspace_id: r.workspaceId,
    reason: r.reason, blocked_by: r.blockedBy, error: r.error, attempts: r.attempts, first_failed_at: r.firstFailedAt, last_failed_at: r.lastFailedAt,
  };
}

/**
 * Operators' view of the caller's workspace's parked events (events a projection or reactor
 * failed on and stepped past; see README "Parked events"), gathered from every context over
 * the transport. Always scoped to the request's workspace: another workspace's parked events
 * are never listed nor retried here (the `parked` tool sees all). Needs `admin:read` / `admin:write`.
 */
export function adminRoutes(options: { readonly contexts: readonly string[] }): HttpRoute[] {
  const common = { tags: ['admin'], auth: true } as const;
  const retry = async (send: Send, request: { workspaceId: string; id?: string }) => {
    const replies = await Promise.all(options.contexts.map(async (context) => ({ context, reply: await send(parkedEventsRetryMessage(context), request) })));
    if (request.id !== undefined && !replies.some((r) => r.reply.found)) throw notFound('Parked event');
    return { applied: replies.reduce((sum, r) => sum + r.reply.applied, 0), failed: replies.flatMap((r) => r.reply.failed.map((f) => view(r.context, f))) };
  };
  return [
    route({
      ...common,
      method: 'GET',
      path: '/api/v1/admin/parked-events',
      operationId: 'list_parked_events',
      summary: "List the workspace's parked events (in log order)",
      permission: ['admin', 'read'],
      query: ListQuery,
      status: 200,
      response: z.object({ items: z.array(ParkedEventView) }),
      errors: [403],
      handle: async ({ query, scope, send }) => {
        const request = { workspaceId: scope.workspaceId, processor: query.processor };
        const lists = await Promise.all(options.contexts.map(async (context) => (await send(parkedEventsListMessage(context), request)).items.map((r) => view(context, r))));
        return { items: lists.flat() };
      },
    }),
    route({
      ...common,
      method: 'POST',
      path: '/api/v1/admin/parked-events/:parked_event_id/retry',
      operationId: 'retry_parked_event',
      summary: 'Retry a parked event: its stream\'s parked events are applied in order (200 with `failed` listing any that failed again)',
      permission: ['admin', 'write'],
      params: IdParams,
      status: 200,
      response: RetryReport,
      errors: [403, 404],
      handle: ({ params, scope, send }) => retry(send, { workspaceId: scope.workspaceId, id: params.parked_event_id }),
    }),
    route({
      ...common,
      method: 'POST',
      path: '/api/v1/admin/parked-events/retry',
      operationId: 'retry_all_parked_events',
      summary: "Retry every parked event of the workspace, each stream in order",
      permission: ['admin', 'write'],
      status: 200,
      response: RetryReport,
      errors: [403],
      handle: ({ scope, send }) => retry(send, { workspaceId: scope.workspaceId }),
    }),
  ];
}
