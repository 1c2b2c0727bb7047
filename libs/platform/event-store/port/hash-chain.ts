import { hash as digest } from 'node:crypto';
import type { EventMetadata } from '@lore/platform/kernel';
import type { EventToAppend } from './event-store.port';

/**
 * Per-stream hash chain (tamper evidence, issue 9). Every adapter stamps each appended event's
 * metadata with `prevHash` (the previous event's `hash`, GENESIS_HASH at revision 0) and
 * `hash` = SHA-256 over the canonical JSON array
 *   [CHAIN_VERSION, streamId, revision, id, type, data, metadata without hash/prevHash, prevHash]
 * so editing, removing or reordering a stored event breaks the chain from that revision on.
 * It does not stop someone who can rewrite the whole store: they can recompute every hash.
 * Exporting stream head hashes elsewhere is what would close that.
 */
export const GENESIS_HASH = '0'.repeat(64);
/** Versioned so the encoding can change later without making old chains look tampered. */
const CHAIN_VERSION = 'lore-chain-v1';

/** The chain fields an adapter writes into every event's metadata. */
export interface ChainFields {
  readonly prevHash: string;
  readonly hash: string;
}

/**
 * JSON with object keys sorted and no whitespace, with JSON.stringify's semantics otherwise
 * (toJSON, undefined members dropped, undefined array items as null), so that the canonical
 * form of what an adapter was given equals that of what it reads back after its own
 * JSON.stringify / JSON.parse round trip.
 */
export function canonicalJson(value: unknown): string {
  return encode(value) ?? 'null';
}

/** Written for speed (it runs on every append): one pass, no intermediate arrays. */
function encode(input: unknown): string | undefined {
  let value = input;
  if (value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    value = (value as { toJSON: () => unknown }).toJSON();
  }
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? JSON.stringify(value) : 'null';
    case 'bigint':
      throw new TypeError('cannot hash a bigint: it has no JSON form');
    case 'object': {
      if (Array.isArray(value)) {
        let out = '[';
        for (let i = 0; i < value.length; i++) out += (i === 0 ? '' : ',') + (encode(value[i]) ?? 'null');
        return `${out}]`;
      }
      const record = value as Record<string, unknown>;
      // Plain sort: UTF-16 code unit order, as RFC 8785 (JCS) sorts keys.
      const keys = Object.keys(record).sort();
      let out = '{';
      for (const key of keys) {
        const encoded = encode(record[key]);
        if (encoded === undefined) continue;
        out += `${out.length === 1 ? '' : ','}${SIMPLE_KEY.test(key) ? `"${key}"` : JSON.stringify(key)}:${encoded}`;
      }
      return `${out}}`;
    }
    default:
      // undefined, functions and symbols have no JSON form: dropped from objects, null in arrays.
      return undefined;
  }
}

/** Keys JSON.stringify would write unchanged between quotes: skip escaping them. */
const SIMPLE_KEY = /^[A-Za-z0-9_$.-]*$/;

/** The metadata the hash covers: everything the writer gave, minus the chain fields themselves. */
function coveredMetadata(metadata: EventMetadata | undefined): Record<string, unknown> {
  if (metadata === undefined) return {};
  const { hash: _hash, prevHash: _prevHash, ...rest } = metadata;
  return rest;
}

export interface ChainedEventInput {
  readonly streamId: string;
  readonly revision: number;
  readonly id: string;
  readonly type: string;
  readonly data: unknown;
  readonly metadata: EventMetadata | undefined;
  readonly prevHash: string;
}

export function chainHash(event: ChainedEventInput): string {
  const covered = [CHAIN_VERSION, event.streamId, event.revision, event.id, event.type, event.data ?? null, coveredMetadata(event.metadata), event.prevHash];
  return digest('sha256', canonicalJson(covered), 'hex');
}

/**
 * The events of one append, their metadata stamped with the chain, starting after the
 * stream's last stored event (revision `firstRevision - 1`, hash `prevHash`). Returns the
 * stamped events and the new head hash. Chain fields a caller passed in (e.g. metadata
 * copied from another event) are replaced, never trusted.
 */
export function chainEvents(
  streamId: string,
  firstRevision: number,
  prevHash: string,
  events: readonly EventToAppend[],
): { readonly events: Array<EventToAppend & { readonly metadata: EventMetadata }>; readonly headHash: string } {
  let previous = prevHash;
  const chained = events.map((event, i) => {
    const metadata = { ...coveredMetadata(event.metadata), prevHash: previous };
    const hash = chainHash({ streamId, revision: firstRevision + i, id: event.id, type: event.type, data: event.data, metadata, prevHash: previous });
    previous = hash;
    return { ...event, metadata: { ...metadata, hash } };
  });
  return { events: chained, headHash: previous };
}

/** The stored hash of an event, or undefined for one written before the chain existed. */
export function storedHash(metadata: EventMetadata): string | undefined {
  return typeof metadata.hash === 'string' ? metadata.hash : undefined;
}
