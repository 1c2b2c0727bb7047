import { setImmediate as nextTurn } from 'node:timers/promises';
import { invalid, type Clock } from '@lore/platform/kernel';
import { verifyStreamChain, type EventStore } from '@lore/platform/event-store/port';
import type { DocumentStore } from '@lore/platform/documents/port';
import type { AuditedAggregate } from '@lore/platform/cqrs';
import type { BrokenStreamRecord } from '@lore/platform/transport/port';

/**
 * How long one context spends on one verify request before it stops and hands back a cursor:
 * well inside the transport's request timeout, and short enough that one workspace's audit
 * never holds a service for long (it also yields to other work between streams).
 */
export const AUDIT_VERIFY_TIME_BOUND_MS = 3_000;
/** Read-model documents fetched per page while listing a workspace's aggregates. */
const LIST_PAGE = 100;

export interface WorkspaceAuditRequest {
  readonly workspaceId: string;
  readonly maxStreams: number;
  readonly cursor?: string | undefined;
}

export interface WorkspaceAuditReport {
  readonly streams: number;
  readonly events: number;
  readonly unchained: number;
  readonly unchainedStreams: number;
  readonly deleted: number;
  readonly broken: BrokenStreamRecord[];
  readonly nextCursor: string | null;
}

/** Where a stopped audit goes on: which aggregate type, and the read-model cursor within it. */
interface Resume {
  readonly aggregate: number;
  readonly after: string | null;
}

/**
 * Verifies the hash chain of every stream of one workspace in one context. The streams come
 * from the context's read models filtered by `workspace_id`, so another workspace's streams
 * are never read. A stream the read models name but the store no longer holds (deleted,
 * erased) is counted as deleted, not broken.
 */
export async function verifyWorkspaceChains(
  stores: { readonly events: EventStore; readonly documents: DocumentStore },
  aggregates: readonly AuditedAggregate[],
  request: WorkspaceAuditRequest,
  clock: Clock,
  timeBoundMs = AUDIT_VERIFY_TIME_BOUND_MS,
): Promise<WorkspaceAuditReport> {
  const stopAt = clock.now().getTime() + timeBoundMs;
  const report = { streams: 0, events: 0, unchained: 0, unchainedStreams: 0, deleted: 0, broken: [] as BrokenStreamRecord[] };
  let position = request.cursor === undefined ? { aggregate: 0, after: null } : decodeResume(request.cursor, aggregates.length);
  while (position.aggregate < aggregates.length) {
    const aggregate = aggregates[position.aggregate]!;
    const room = request.maxStreams - report.streams;
    const page = await stores.documents.collection(aggregate.collection).find({
      filter: { workspace_id: request.workspaceId },
      limit: Math.min(room, LIST_PAGE),
      ...(position.after === null ? {} : { cursor: position.after }),
    });
    for (const doc of page.items) {
      await nextTurn(); // one stream at a time, letting the service's other requests in between
      const events = await stores.events.readStream(aggregate.streamId(doc.id));
      report.streams++;
      if (events.length === 0) {
        report.deleted++;
        continue;
      }
      const verdict = verifyStreamChain(events);
      report.events += verdict.events;
      report.unchained += verdict.unchained;
      if (verdict.unchained > 0) report.unchainedStreams++;
      if (!verdict.ok) report.broken.push({ streamId: aggregate.streamId(doc.id), firstBadRevision: verdict.firstBadRevision, reason: verdict.reason });
    }
    position = page.nextCursor === null ? { aggregate: position.aggregate + 1, after: null } : { aggregate: position.aggregate, after: page.nextCursor };
    const more = position.aggregate < aggregates.length;
    // The page just read may be the last one: only then is there nothing left to resume.
    if (more && (report.streams >= request.maxStreams || clock.now().getTime() >= stopAt)) return { ...report, nextCursor: encodeResume(position) };
  }
  return { ...report, nextCursor: null };
}

function encodeResume(position: Resume): string {
  return Buffer.from(JSON.stringify([position.aggregate, position.after])).toString('base64url');
}

function decodeResume(cursor: string, aggregateCount: number): Resume {
  try {
    const [aggregate, after] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    if (Number.isInteger(aggregate) && (aggregate as number) >= 0 && (aggregate as number) < aggregateCount && (after === null || typeof after === 'string')) {
      return { aggregate: aggregate as number, after: after };
    }
  } catch {
    // fall through to the one error below
  }
  throw invalid(['query', 'cursor'], 'Invalid cursor: pass the next_cursor of a previous verify reply');
}
