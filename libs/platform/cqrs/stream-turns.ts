import type { EventStore } from '@lore/platform/event-store/port';

/**
 * Commands to one stream from this process take turns (handleCommand): each is decided and
 * appended once the one before it has finished, on the state that one left. Racing instead,
 * the appends to one stream that met in a group commit all but one conflicted and were decided
 * again, so n commands at once cost about n²/2 decisions and appends (eight writers to one
 * conversation: ~4× the CPU per message). Writers in other processes still race, and the
 * expected revision still catches them. An uncontended command makes no promise here.
 */
export class StreamTurns {
  private static readonly byStore = new WeakMap<EventStore, StreamTurns>();

  static of(store: EventStore): StreamTurns {
    let turns = StreamTurns.byStore.get(store);
    if (turns === undefined) {
      turns = new StreamTurns();
      StreamTurns.byStore.set(store, turns);
    }
    return turns;
  }

  /** Per stream with a command under way: the commands waiting for their turn, in order. */
  private readonly waiting = new Map<string, Array<() => void>>();

  /** The caller's turn on `streamId`: at once (undefined) or when the promise resolves. Each take is followed by one release. */
  take(streamId: string): Promise<void> | undefined {
    const queue = this.waiting.get(streamId);
    if (queue === undefined) {
      this.waiting.set(streamId, []);
      return undefined;
    }
    return new Promise((resolve) => queue.push(resolve));
  }

  /** Ends the caller's turn: the next waiting command's begins. */
  release(streamId: string): void {
    const next = this.waiting.get(streamId)?.shift();
    if (next === undefined) this.waiting.delete(streamId);
    else next();
  }

  /** Streams with a command under way (for tests: none is left behind). */
  get busy(): number {
    return this.waiting.size;
  }
}
