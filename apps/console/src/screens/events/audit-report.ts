import type { AuditVerifyReport } from '@lore/client';

export type ContextVerdict = AuditVerifyReport['contexts'][number];

/** Every reply of one verify run added up: each context once, its counts summed and its broken streams listed. */
export interface AuditTotals {
  readonly contexts: readonly ContextVerdict[];
  readonly streams: number;
  readonly ok: boolean;
}

export const EMPTY_TOTALS: AuditTotals = { contexts: [], streams: 0, ok: true };

/** Adds one reply (a page of the verify, continued by cursor) to what the run found so far. */
export function addReply(totals: AuditTotals, reply: AuditVerifyReport): AuditTotals {
  const byName = new Map(totals.contexts.map((c) => [c.context, c]));
  for (const c of reply.contexts) {
    const seen = byName.get(c.context);
    byName.set(
      c.context,
      seen === undefined
        ? c
        : {
            context: c.context,
            streams: seen.streams + c.streams,
            events: seen.events + c.events,
            unchained: seen.unchained + c.unchained,
            unchained_streams: seen.unchained_streams + c.unchained_streams,
            deleted: seen.deleted + c.deleted,
            broken: [...seen.broken, ...c.broken],
            truncated: c.truncated,
          },
    );
  }
  const contexts = [...byName.values()];
  return { contexts, streams: contexts.reduce((sum, c) => sum + c.streams, 0), ok: totals.ok && reply.ok };
}
