import type { Position, RecordedEvent } from '@lore/platform/kernel';
import { streamPages, type EventStore } from '@lore/platform/event-store/port';
import type { DocumentStore } from '@lore/platform/documents/port';
import type { Reactor } from '@lore/platform/projections';
import { eraseAggregates } from './sealed-fields';
import type { Keyring } from './keyring';

export interface StreamErasure {
  /** The reactor's checkpoint name. */
  readonly name: string;
  readonly streamPrefix: string;
  /** The stream an event erases (its aggregate's deletion event), or null for any other event. */
  readonly erasedStream: (event: RecordedEvent) => string | null;
  /** The data keys an event of such a stream sealed something with. */
  readonly keyIdsOf: (event: RecordedEvent) => readonly string[];
  /**
   * What else the erased streams' events point to, deleted before their keys and streams go
   * (while the events still say where it is: a content's original file in the blob store).
   * Called a page of the stream at a time (a content's chunk events carry their vectors: the
   * whole stream is never held at once). Idempotent, like every step: a crash before the
   * streams are deleted runs it again.
   */
  readonly alsoErase?: (events: readonly RecordedEvent[]) => Promise<void>;
  /**
   * An event that erases part of an aggregate (a conversation's deleted messages), or null:
   * its stream stays, and the keys of the stream's events that `erases` selects are shredded
   * (those events stay, unreadable).
   */
  readonly erasedPart?: (event: RecordedEvent) => PartialErasure | null;
  /** Further forgetting once the keys and streams are gone (a search index's deleted points). */
  readonly afterwards?: () => Promise<void>;
}

export interface StreamErasureDeps {
  readonly events: EventStore;
  readonly documents: DocumentStore;
  readonly keyring: Keyring;
  /**
   * Resolves once every other processor has handled the position (deleting the stream first
   * would hide the events from them) and has dropped what it parked of the erased streams.
   */
  readonly processedByOthers: (position: Position, erasedStreams: readonly string[]) => Promise<void>;
}

export interface PartialErasure {
  readonly streamId: string;
  readonly erases: (event: RecordedEvent) => boolean;
}

interface Erasure extends PartialErasure {
  readonly event: RecordedEvent;
  readonly wholeStream: boolean;
}

/**
 * Permanent deletion of whole aggregates (or of parts: `erasedPart`), driven by their deletion
 * events: once every other processor of their streams has passed the deletion (read models
 * dropped the aggregate, publishers announced it), shred every data key their events used,
 * delete their streams and make the engines forget the bytes. A reactor with a checkpoint, so a crash between the
 * deletion event and the shredding is repaired on restart; every step is idempotent (a stream
 * already deleted has no events left, its keys went first).
 */
export function streamErasureReactor(deps: StreamErasureDeps, erasure: StreamErasure): Reactor {
  return {
    name: erasure.name,
    streamPrefixes: [erasure.streamPrefix],
    // Deletions are rare among its streams' events: the others cost it no commit each.
    actsOn: (event) => erasureBy(erasure, event).length > 0,
    async react(events) {
      const erasures = events.flatMap((event) => erasureBy(erasure, event));
      const last = erasures.at(-1);
      if (last === undefined) return;
      const streamIds = [...new Set(erasures.filter((e) => e.wholeStream).map((e) => e.streamId))];
      await deps.processedByOthers(last.event.position, streamIds);
      const keyIds = new Set<string>();
      for (const { streamId, erases } of erasures) {
        // A stream already deleted (a crash after its deletion) reads empty: its keys went first.
        for await (const page of streamPages(deps.events, streamId)) {
          const erased = page.filter(erases);
          for (const event of erased) for (const keyId of erasure.keyIdsOf(event)) keyIds.add(keyId);
          if (erased.length > 0) await erasure.alsoErase?.(erased);
        }
      }
      await eraseAggregates(deps, { keyIds: [...keyIds], streamIds });
      await erasure.afterwards?.();
    },
  };
}

function erasureBy(erasure: StreamErasure, event: RecordedEvent): Erasure[] {
  const whole = erasure.erasedStream(event);
  if (whole !== null) return [{ event, streamId: whole, wholeStream: true, erases: () => true }];
  const part = erasure.erasedPart?.(event) ?? null;
  return part === null ? [] : [{ event, ...part, wholeStream: false }];
}
