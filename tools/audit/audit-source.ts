import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { RecordedEvent } from '@lore/platform/kernel';
import type { RecordedHead } from '@lore/platform/event-store/port';
import type { LoreConfig } from '@lore/platform/runtime';
import { EsdbAuditSource } from './esdb-audit-source';
import { SqliteAuditSource } from './sqlite-audit-source';

/** One stream as the audit verifies it. */
export interface AuditStream {
  readonly streamId: string;
  /** In revision order. */
  readonly events: readonly RecordedEvent[];
  /** The head the store records apart from the events, where it records one. */
  readonly head?: RecordedHead;
  /** Set when the store holds events for a stream it has no live record of: always a finding. */
  readonly unrecorded?: string;
}

export interface DeletedStream {
  readonly streamId: string;
  /** null: deleted before deletion times were recorded. */
  readonly deletedAt: string | null;
  /** Set while the deletion is under way: the events it has yet to remove (an erasure run again finishes it). */
  readonly eventsLeft?: number;
}

/** An event store as the audit reads it: read-only, in global order, stream by stream. */
export interface AuditSource {
  /** The context name, or `eventstoredb` for the one server all contexts share. */
  readonly context: string;
  events(): AsyncIterable<RecordedEvent>;
  streams(): AsyncIterable<AuditStream>;
  /** undefined: the store cannot list its deleted streams. */
  deletedStreams(): Promise<DeletedStream[] | undefined>;
  close(): Promise<void>;
}

/**
 * The event stores Lore uses under this configuration: with EVENTSTORE_URL every context
 * writes to one EventStoreDB, read as one source; otherwise each context's SQLite file.
 * A context that never stored anything (no file yet) has nothing to audit.
 */
export function openAuditSources(config: LoreConfig, contexts: readonly string[]): AuditSource[] {
  if (config.eventStoreUrl !== undefined) return [new EsdbAuditSource(config.eventStoreUrl)];
  return contexts
    .map((context) => ({ context, path: join(config.dataDir, context, 'events.db') }))
    .filter(({ path }) => existsSync(path))
    .map(({ context, path }) => new SqliteAuditSource(context, path));
}
