import { z } from 'zod';
import { invalid } from '@lore/platform/kernel';
import { route, type HttpRoute } from '@lore/platform/http';
import { AUDIT_VERIFY_DEFAULT_STREAMS, AUDIT_VERIFY_MAX_STREAMS, auditVerifyMessage } from '@lore/platform/transport/port';

const BrokenStreamView = z.object({
  stream_id: z.string(),
  first_bad_revision: z.number().int().describe('The first revision whose stored history is not the one appended'),
  reason: z.string().describe('Why, e.g. "content does not match its hash (data, metadata, id or type edited)"'),
});

const ContextVerdictView = z.object({
  context: z.string(),
  streams: z.number().int().describe('Streams checked in this reply (deleted ones included)'),
  events: z.number().int(),
  unchained: z.number().int().describe('Events written before the hash chain existed (accepted, not verifiable)'),
  unchained_streams: z.number().int(),
  deleted: z.number().int().describe('Streams whose events were deleted or erased: counted, not errors'),
  broken: z.array(BrokenStreamView),
  truncated: z.boolean().describe('This context has streams left: continue with next_cursor'),
});

const VerifyReport = z.object({
  ok: z.boolean().describe('No stream checked in this reply is broken'),
  truncated: z.boolean().describe('Some streams are not checked yet (stream cap or time bound): call again with next_cursor'),
  next_cursor: z.string().nullable(),
  contexts: z.array(ContextVerdictView).describe('The contexts checked in this reply'),
});

const VerifyQuery = z.object({
  limit: z.coerce.number().int().min(1).max(AUDIT_VERIFY_MAX_STREAMS).default(AUDIT_VERIFY_DEFAULT_STREAMS).describe('Most streams checked per context in this reply'),
  cursor: z.string().min(1).max(8000).optional().describe('The next_cursor of a previous reply'),
});

/** Which contexts still have streams, and where each goes on. */
type Resume = Record<string, string>;

function encodeResume(resume: Resume): string | null {
  return Object.keys(resume).length === 0 ? null : Buffer.from(JSON.stringify(resume)).toString('base64url');
}

function decodeResume(cursor: string, contexts: readonly string[]): Resume {
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) {
      const entries = Object.entries(parsed);
      if (entries.length > 0 && entries.every(([context, at]) => contexts.includes(context) && typeof at === 'string')) return parsed as Resume;
    }
  } catch {
    // fall through to the one error below
  }
  throw invalid(['query', 'cursor'], 'Invalid cursor: pass the next_cursor of a previous verify reply');
}

/**
 * `audit verify` for the caller's workspace over HTTP (README "Audit and tamper evidence"):
 * every context checks the hash chains of this workspace's streams only, bounded per request
 * (a stream cap per context and a time bound), continued by cursor. Counts, stream ids and
 * reasons only, never event data. Administrators only (`admin:read`).
 */
export function auditRoutes(options: { readonly contexts: readonly string[] }): HttpRoute[] {
  return [
    route({
      method: 'GET',
      path: '/api/v1/admin/audit/verify',
      operationId: 'verify_audit_chain',
      summary: "Verify the hash chains of the workspace's event streams (tamper evidence)",
      tags: ['admin'],
      auth: true,
      permission: ['admin', 'read'],
      query: VerifyQuery,
      status: 200,
      response: VerifyReport,
      errors: [403, 422],
      handle: async ({ query, scope, send }) => {
        const resume = query.cursor === undefined ? null : decodeResume(query.cursor, options.contexts);
        const asked = resume === null ? options.contexts : options.contexts.filter((context) => context in resume);
        const verdicts = await Promise.all(
          asked.map(async (context) => {
            const cursor = resume?.[context];
            const reply = await send(auditVerifyMessage(context), { workspaceId: scope.workspaceId, maxStreams: query.limit, ...(cursor === undefined ? {} : { cursor }) });
            return { context, reply };
          }),
        );
        const next: Resume = {};
        for (const { context, reply } of verdicts) if (reply.nextCursor !== null) next[context] = reply.nextCursor;
        const nextCursor = encodeResume(next);
        return {
          ok: verdicts.every((v) => v.reply.broken.length === 0),
          truncated: nextCursor !== null,
          next_cursor: nextCursor,
          contexts: verdicts.map(({ context, reply }) => ({
            context,
            streams: reply.streams,
            events: reply.events,
            unchained: reply.unchained,
            unchained_streams: reply.unchainedStreams,
            deleted: reply.deleted,
            broken: reply.broken.map((b) => ({ stream_id: b.streamId, first_bad_revision: b.firstBadRevision, reason: b.reason })),
            truncated: reply.nextCursor !== null,
          })),
        };
      },
    }),
  ];
}
