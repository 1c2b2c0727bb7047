import { z } from 'zod';
import { AppError } from '@lore/platform/kernel';
import { EventStreamReply, route, type HttpRoute, type ServerSentEvent } from '@lore/platform/http';
import type { EventFeed, FeedBounds, FeedSelector } from '@lore/platform/transport/port';
import type { EventIds } from '../http/event-ids';

/** `?after=0` (or `Last-Event-ID: 0`): from the oldest event the feed keeps. */
const FROM_OLDEST = '0';
const ID_MESSAGE = 'must be an event id this stream sent (or "0": from the oldest event kept)';

/**
 * `GET /api/v1/events`: the workspace's integration events as Server-Sent Events, from the
 * event feed (JetStream distributed, SQLite standalone). Each event's `id` is opaque (its feed
 * position sealed for the workspace, see {@link EventIds}): a client resumes with
 * `Last-Event-ID` (what `EventSource` sends on reconnect) or `?after=`, across gateway and
 * service restarts, and learns nothing of other workspaces from it. Without either it starts
 * with new events.
 */
export function eventsRoutes(options: { readonly feed: EventFeed; readonly eventTypes: readonly string[]; readonly ids: EventIds }): HttpRoute[] {
  const types = [...new Set(options.eventTypes)].sort();
  const contexts = [...new Set(types.map((type) => type.slice(0, type.indexOf('.'))))];
  const list = (known: readonly string[], what: string) =>
    z
      .string()
      .optional()
      .transform((value, ctx) => {
        const items = (value ?? '').split(',').map((item) => item.trim()).filter(Boolean);
        for (const item of items) if (!known.includes(item)) ctx.addIssue({ code: 'custom', message: `Unknown ${what} ${JSON.stringify(item)}; known: ${known.join(', ')}` });
        return items;
      });

  return [
    route({
      method: 'GET',
      path: '/api/v1/events',
      operationId: 'stream_events_api_v1_events_get',
      summary: 'Stream the workspace\'s integration events (Server-Sent Events, resumable with Last-Event-ID)',
      tags: ['events'],
      auth: true,
      permission: ['events', 'read'],
      query: z.object({
        contexts: list(contexts, 'context').describe(`Comma-separated contexts: ${contexts.join(', ')}`),
        types: list(types, 'event type').describe('Comma-separated event types, e.g. memory.created (an event matching either list is sent)'),
        after: z.string().max(100).optional().describe('Resume after this event id (an `id` this stream sent); the Last-Event-ID header wins when both are sent. "0": from the oldest event kept.'),
      }),
      status: 200,
      response: z.object({ type: z.string(), event_id: z.string(), workspace_id: z.string(), occurred_at: z.string() }).loose().describe('Each `data:` line holds one integration event (see /asyncapi.json)'),
      textResponses: ['text/event-stream'],
      handle: async ({ query, scope }) => {
        const selector: FeedSelector = { workspaceId: scope.workspaceId, contexts: query.contexts, types: query.types };
        // Read before the response starts: "from now" must not miss what a client does once it sees the headers.
        const bounds = await options.feed.bounds();
        const { ids } = options;
        const workspaceId = scope.workspaceId;
        return new EventStreamReply((lastEventId, signal) => stream(options.feed, selector, bounds, resumePoint(ids, workspaceId, lastEventId, query.after), (p) => ids.encodeMany(workspaceId, p), signal));
      },
    }),
  ];
}

/** The position to resume after (the header wins), undefined for "from now"; 422 at the id that does not open. */
function resumePoint(ids: EventIds, workspaceId: string, lastEventId: string | undefined, after: string | undefined): { position: number; id: string } | undefined {
  const header = lastEventId?.trim() || undefined;
  const [given, loc] = header !== undefined ? [header, ['header', 'last-event-id']] : [after, ['query', 'after']];
  if (given === undefined) return undefined;
  if (given === FROM_OLDEST) return { position: 0, id: given };
  const position = ids.decode(workspaceId, given);
  if (position === null) throw new AppError('validation', 'Request validation failed', [{ loc, msg: ID_MESSAGE, type: 'value_error' }]);
  return { position, id: given };
}

async function* stream(
  feed: EventFeed,
  selector: FeedSelector,
  bounds: FeedBounds,
  after: { position: number; id: string } | undefined,
  idsOf: (positions: readonly number[]) => string[],
  signal: AbortSignal,
): AsyncGenerator<ServerSentEvent[]> {
  // Without a resume point: from now on. With one older than what the feed still keeps
  // (EVENTS_STREAM_MAX_AGE_HOURS), the client is told events may be missing before the rest
  // (in its own terms: the id it sent; positions stay inside).
  const from = after?.position ?? bounds.last;
  if (after !== undefined && after.position + 1 < bounds.first) {
    yield [{ event: 'gap', data: JSON.stringify({ after: after.id, message: 'Events after your position have expired from the feed; some may be missing.' }) }];
  }
  // The events as the feed stored them (one line of JSON each): passed through, never parsed
  // here; a page's ids are sealed together.
  for await (const page of feed.follow({ after: from, selector, signal })) {
    const ids = idsOf(page.map((entry) => entry.position));
    yield page.map((entry, i) => ({ id: ids[i] ?? '', data: entry.stored }));
  }
}
