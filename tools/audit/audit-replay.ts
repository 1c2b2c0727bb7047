import type { RecordedEvent } from '@lore/platform/kernel';
import type { ReplayFilters } from './audit-options';
import type { AuditSource } from './audit-source';
import { maskSealed } from './sealed-values';
import type { KeyPresence } from './sealed-values';

/** One replayed event, as printed (one JSON object per line with --format jsonl). */
export interface AuditLine {
  readonly context: string;
  readonly stream: string;
  readonly revision: number;
  /** The store's global position (decimal; 64-bit, so not a JSON number). */
  readonly position: string;
  readonly type: string;
  readonly recordedAt: string;
  readonly actor: string | null;
  readonly workspace: string | null;
  /** Why: the HTTP request, the chain it belongs to, the stored event it reacted to (null where none). */
  readonly requestId: string | null;
  readonly correlationId: string | null;
  readonly causationId: string | null;
  readonly data: unknown;
}

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);

function workspaceOf(event: RecordedEvent): string | null {
  // Commands record the workspace in metadata; older events may carry it only in their data.
  const data = event.data as { workspaceId?: unknown } | null;
  return text(event.metadata.workspaceId) ?? text(data?.workspaceId);
}

export function matches(event: RecordedEvent, filters: ReplayFilters): boolean {
  if (filters.stream !== undefined && event.streamId !== filters.stream) return false;
  // Stream ids are `<kind>-<aggregate id>`, so an aggregate id names its stream by suffix.
  if (filters.aggregate !== undefined && event.streamId !== filters.aggregate && !event.streamId.endsWith(`-${filters.aggregate}`)) return false;
  if (filters.type !== undefined && event.type !== filters.type) return false;
  if (filters.actor !== undefined && event.metadata.actor !== filters.actor) return false;
  if (filters.workspace !== undefined && workspaceOf(event) !== filters.workspace) return false;
  const at = Date.parse(event.recordedAt);
  if (filters.since !== undefined && at < Date.parse(filters.since)) return false;
  if (filters.until !== undefined && at > Date.parse(filters.until)) return false;
  return true;
}

/**
 * Every source's events, merged by recorded time (ties keep the sources' order); within a
 * source they come in its global order. Reads one event ahead per source, never more.
 */
export async function* mergeByTime(sources: readonly AuditSource[]): AsyncIterable<{ context: string; event: RecordedEvent }> {
  const cursors = sources.map((source) => ({ context: source.context, iterator: source.events()[Symbol.asyncIterator]() }));
  const heads = await Promise.all(cursors.map((c) => c.iterator.next()));
  for (;;) {
    let next = -1;
    for (const [i, head] of heads.entries()) {
      if (head.done === true) continue;
      const best = next === -1 ? undefined : heads[next];
      if (best === undefined || best.done === true || head.value.recordedAt < best.value.recordedAt) next = i;
    }
    const chosen = heads[next];
    const cursor = cursors[next];
    if (chosen === undefined || chosen.done === true || cursor === undefined) return;
    yield { context: cursor.context, event: chosen.value };
    heads[next] = await cursor.iterator.next();
  }
}

export function toLine(context: string, event: RecordedEvent, keys: KeyPresence): AuditLine {
  return {
    context,
    stream: event.streamId,
    revision: event.revision,
    position: event.position.commit.toString(),
    type: event.type,
    recordedAt: event.recordedAt,
    actor: text(event.metadata.actor),
    workspace: workspaceOf(event),
    requestId: text(event.metadata.requestId),
    correlationId: text(event.metadata.correlationId),
    causationId: text(event.metadata.causationId),
    data: maskSealed(event.data, keys),
  };
}

const DATA_WIDTH = 100;

/** The --format table rendering: fixed columns, data as compact JSON cut to one screen line. */
export function tableHeader(): string {
  return ['recorded at'.padEnd(24), 'context'.padEnd(13), 'stream@revision'.padEnd(44), 'type'.padEnd(36), 'actor'.padEnd(24), 'workspace'.padEnd(20), 'data'].join(' ');
}

export function tableRow(line: AuditLine): string {
  const data = JSON.stringify(line.data) ?? 'null';
  return [
    line.recordedAt.padEnd(24),
    line.context.padEnd(13),
    `${line.stream}@${line.revision}`.padEnd(44),
    line.type.padEnd(36),
    (line.actor ?? '-').padEnd(24),
    (line.workspace ?? '-').padEnd(20),
    data.length > DATA_WIDTH ? `${data.slice(0, DATA_WIDTH - 1)}…` : data,
  ].join(' ');
}
