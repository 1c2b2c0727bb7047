import type { Position } from '@lore/platform/kernel';
import type { EventStore } from '@lore/platform/event-store/port';
import type { DocumentStore } from '@lore/platform/documents/port';
import type { VectorStore } from '@lore/platform/vectors/port';
import { isReactor, type ReadModelProjection, type Reactor } from './projection';
import { ProjectionRunner } from './projection-runner';

/**
 * The projections and reactors one service hosts, each behind its own checkpointed runner.
 * Read-your-writes waits for the projections only; a write waits for a reactor only where
 * the reactor's effect is what the write promises (a permanent deletion is answered once
 * erased).
 */
export class EventProcessors {
  readonly runners: readonly ProjectionRunner[];
  /** The runners read-your-writes waits for (every write asks). */
  private readonly projections: readonly ProjectionRunner[];

  constructor(
    processors: { readonly projections: readonly ReadModelProjection[]; readonly reactors: readonly Reactor[] },
    events: EventStore,
    documents: DocumentStore,
    onError: (processor: string, error: unknown) => void,
    vectors: VectorStore | null = null,
  ) {
    this.runners = [...processors.projections, ...processors.reactors].map((p) => new ProjectionRunner(p, events, documents, (e) => onError(p.name, e), vectors));
    this.projections = this.runners.filter((r) => !isReactor(r.processor));
  }


  async start(): Promise<void> {
    await Promise.all(this.runners.map((r) => r.start()));
  }

  async stop(): Promise<void> {
    await Promise.all(this.runners.map((r) => r.stop()));
  }

  /** Read-your-writes: waits until every projection has applied the position. */
  async waitFor(position: Position | null, timeoutMs: number): Promise<void> {
    if (position === null) return;
    await Promise.all(this.projections.map((r) => r.waitFor(position, timeoutMs)));
  }

  /**
   * Waits until every other processor of the streams `name` reads has handled the position
   * (erasure waits for all readers of a stream it deletes). Processors of other streams never
   * see the position, so their checkpoints never pass it: they are not waited for.
   */
  async waitForAllBut(name: string, position: Position | null, timeoutMs: number): Promise<void> {
    if (position === null) return;
    const prefixes = this.runner(name).processor.streamPrefixes;
    // No prefixes means every stream.
    const overlaps = (other: readonly string[]): boolean => other.length === 0 || prefixes.length === 0 || other.some((p) => prefixes.some((q) => p.startsWith(q) || q.startsWith(p)));
    const readers = this.runners.filter((r) => r.processor.name !== name && overlaps(r.processor.streamPrefixes));
    await Promise.all(readers.map((r) => r.waitFor(position, timeoutMs)));
  }

  /** Waits for one named processor (e.g. erasure before a deletion is reported done). */
  async waitForOne(name: string, position: Position | null, timeoutMs: number): Promise<void> {
    if (position === null) return;
    await this.runner(name).waitFor(position, timeoutMs);
  }

  isReady(): boolean {
    return this.runners.every((r) => r.state === 'live');
  }

  status(): Record<string, string> {
    return Object.fromEntries(this.runners.map((r) => [r.processor.name, r.state]));
  }

  /** Projection names: what a rebuild covers (reactors are never rebuilt: re-running effects is no rebuild). */
  projectionNames(): string[] {
    return this.projections.map((r) => r.processor.name);
  }

  /** Rebuilds the named processors and resolves once each has caught up with the log. */
  async rebuild(names: readonly string[], timeoutMs: number): Promise<void> {
    const unknown = names.filter((n) => !this.runners.some((r) => r.processor.name === n));
    if (unknown.length > 0) throw new Error(`unknown projection: ${unknown.join(', ')}`);
    for (const name of names) {
      const runner = this.runner(name);
      await runner.rebuild();
      await runner.untilLive(timeoutMs);
    }
  }

  /** Where a processor has got to in the log (for progress reports). */
  checkpointOf(name: string): Position {
    return this.runner(name).checkpoint;
  }

  private runner(name: string): ProjectionRunner {
    const found = this.runners.find((r) => r.processor.name === name);
    if (found === undefined) throw new Error(`no processor named ${name}`);
    return found;
  }
}
