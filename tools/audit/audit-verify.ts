import { verifyStreamChain } from '@lore/platform/event-store/port';
import type { AuditSource, DeletedStream } from './audit-source';

export interface BrokenStream {
  readonly streamId: string;
  readonly firstBadRevision: number;
  readonly reason: string;
}

export interface ContextVerdict {
  readonly context: string;
  readonly streams: number;
  readonly events: number;
  /** Events written before the hash chain existed, and how many streams hold them. */
  readonly unchained: number;
  readonly unchainedStreams: number;
  /** undefined: the store cannot list them (EventStoreDB). */
  readonly deleted: readonly DeletedStream[] | undefined;
  readonly broken: readonly BrokenStream[];
}

/** Checks every stream of one source, one stream in memory at a time. */
export async function verifySource(source: AuditSource): Promise<ContextVerdict> {
  let streams = 0;
  let events = 0;
  let unchained = 0;
  let unchainedStreams = 0;
  const broken: BrokenStream[] = [];
  for await (const stream of source.streams()) {
    streams++;
    events += stream.events.length;
    if (stream.unrecorded !== undefined) {
      broken.push({ streamId: stream.streamId, firstBadRevision: stream.events[0]?.revision ?? 0, reason: stream.unrecorded });
      continue;
    }
    const verdict = verifyStreamChain(stream.events, stream.head);
    unchained += verdict.unchained;
    if (verdict.unchained > 0) unchainedStreams++;
    if (!verdict.ok) broken.push({ streamId: stream.streamId, firstBadRevision: verdict.firstBadRevision, reason: verdict.reason });
  }
  return { context: source.context, streams, events, unchained, unchainedStreams, deleted: await source.deletedStreams(), broken };
}

/** The human report of one context; every broken stream and every deleted stream is listed. */
export function describeVerdict(v: ContextVerdict): string {
  const lines = [
    `${v.context}: ${v.broken.length === 0 ? 'OK' : `BROKEN (${v.broken.length} stream${v.broken.length === 1 ? '' : 's'})`}`,
    `  streams checked: ${v.streams}`,
    `  events: ${v.events}`,
    `  unchained (written before the hash chain): ${v.unchained} event${v.unchained === 1 ? '' : 's'} in ${v.unchainedStreams} stream${v.unchainedStreams === 1 ? '' : 's'}`,
    v.deleted === undefined ? '  deleted streams: not listable in this store' : `  deleted streams: ${v.deleted.length}`,
  ];
  for (const d of v.deleted ?? []) {
    const at = `    ${d.streamId} deleted at ${d.deletedAt ?? 'an unrecorded time (before deletion times were kept)'}`;
    lines.push(d.eventsLeft === undefined ? at : `${at}; being deleted, ${d.eventsLeft} event${d.eventsLeft === 1 ? '' : 's'} left`);
  }
  for (const b of v.broken) lines.push(`  broken: ${b.streamId} at revision ${b.firstBadRevision}: ${b.reason}`);
  return lines.join('\n');
}
