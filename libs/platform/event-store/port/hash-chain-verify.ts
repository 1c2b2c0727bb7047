import type { EventMetadata } from '@lore/platform/kernel';
import { GENESIS_HASH, chainHash, storedHash } from './hash-chain';

/** What verifying needs of a stored event (a RecordedEvent has all of it). */
export interface ChainLink {
  readonly streamId: string;
  readonly revision: number;
  readonly id: string;
  readonly type: string;
  readonly data: unknown;
  readonly metadata: EventMetadata;
}

/** Where the store says the stream ends, when it records that apart from the events (SQLite's streams table). */
export interface RecordedHead {
  readonly revision: number;
  /** null: the head was recorded before the chain existed. */
  readonly hash: string | null;
}

export interface ChainCounts {
  readonly events: number;
  /** Events written before the hash chain existed: a prefix of the stream without chain fields. */
  readonly unchained: number;
}

export type ChainVerdict =
  | (ChainCounts & { readonly ok: true })
  | (ChainCounts & { readonly ok: false; readonly firstBadRevision: number; readonly reason: string });

/**
 * Checks one stream's events, as read in revision order, against the chain the adapters
 * write (see hash-chain.ts). Pure: the audit tool and the contract suite share it. Reports
 * the first revision where the stored history stops being the one that was appended:
 * an edited event (its hash no longer matches), a removed or reordered event (revisions
 * not 0..n, or a prevHash not linking), a stripped chain in the middle, or, given the
 * recorded head, events cut off the end. Events before the chain existed (no `hash` and no
 * `prevHash`) are accepted as a leading prefix and counted as unchained.
 */
export function verifyStreamChain(events: readonly ChainLink[], head?: RecordedHead): ChainVerdict {
  let unchained = 0;
  let previousHash: string | undefined;
  const broken = (firstBadRevision: number, reason: string): ChainVerdict => ({ ok: false, events: events.length, unchained, firstBadRevision, reason });

  for (const [index, event] of events.entries()) {
    if (event.revision !== index) {
      return event.revision > index
        ? broken(index, `revision ${index} is missing (the next stored revision is ${event.revision})`)
        : broken(index, `out of order: revision ${event.revision} stands where revision ${index} belongs`);
    }
    const hash = storedHash(event.metadata);
    const prevHash = event.metadata.prevHash;
    if (hash === undefined && prevHash === undefined && previousHash === undefined) {
      unchained++;
      continue;
    }
    if (hash === undefined || typeof prevHash !== 'string') {
      return broken(index, 'chain fields missing after the chain started (hash or prevHash removed)');
    }
    // The first chained event of a stream links to the genesis value, also after pre-chain events.
    const expectedPrev = previousHash ?? GENESIS_HASH;
    if (prevHash !== expectedPrev) {
      return broken(index, index === 0 || previousHash === undefined ? 'prevHash is not the genesis value' : `prevHash does not link to revision ${index - 1}`);
    }
    if (chainHash({ ...event, prevHash }) !== hash) return broken(index, 'content does not match its hash (data, metadata, id or type edited)');
    previousHash = hash;
  }

  if (head !== undefined) {
    const last = events.length - 1;
    if (head.revision > last) return broken(last + 1, `events after revision ${last} are missing (the stream's recorded head is revision ${head.revision})`);
    if (head.revision < last) return broken(head.revision + 1, `revisions after ${head.revision} are not part of the stream's recorded head`);
    if (head.hash !== null && head.hash !== previousHash) return broken(last, "the last event's hash differs from the stream's recorded head hash");
  }
  return { ok: true, events: events.length, unchained };
}
