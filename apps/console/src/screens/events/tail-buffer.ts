import type { StreamedEvent } from '@lore/client';

/** The tail keeps the newest events only: a busy workspace must not grow the page without bound. */
export const TAIL_LIMIT = 500;

/** A line of the tail: an event, or the notice that events expired while the stream was away. */
export type TailLine = StreamedEvent & { readonly receivedAt: string };

/** Newest first, at most `TAIL_LIMIT`. */
export function appendToTail(lines: readonly TailLine[], item: StreamedEvent, receivedAt: Date): TailLine[] {
  return [{ ...item, receivedAt: receivedAt.toISOString() }, ...lines].slice(0, TAIL_LIMIT);
}

/** The event's own ids (`memory_id`, `conversation_id`…) in a line, without the envelope every event has. */
export function eventSubject(event: Record<string, unknown>): string {
  const envelope = new Set(['type', 'event_id', 'occurred_at', 'workspace_id']);
  return Object.entries(event)
    .filter(([key, value]) => !envelope.has(key) && (typeof value === 'string' || typeof value === 'number'))
    .map(([key, value]) => `${key}=${String(value)}`)
    .join(' ');
}

/** A comma-separated filter as the stream takes it (`memory,conversation`), blanks dropped. */
export function filterList(text: string): string[] {
  return text
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part.length > 0);
}
