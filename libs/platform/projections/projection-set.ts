import type { Position } from '@lore/platform/kernel';
import type { EventStore } from '@lore/platform/event-store/port';
import type { DocumentStore } from '@lore/platform/documents/port';
import type { Projection } from './projection';
import { ProjectionRunner } from './projection-runner';

/** The projections one service hosts, started, awaited and rebuilt together. */
export class ProjectionSet {
  readonly runners: readonly ProjectionRunner[];

  constructor(
    projections: readonly Projection[],
    events: EventStore,
    documents: DocumentStore,
    onError: (projection: string, error: unknown) => void,
  ) {
    this.runners = projections.map((p) => new ProjectionRunner(p, events, documents, (e) => onError(p.name, e)));
  }

  async start(): Promise<void> {
    await Promise.all(this.runners.map((r) => r.start()));
  }

  async stop(): Promise<void> {
    await Promise.all(this.runners.map((r) => r.stop()));
  }

  /** Waits until every projection has applied the position (read-your-writes). */
  async waitFor(position: Position | null, timeoutMs: number): Promise<void> {
    if (position === null) return;
    await Promise.all(this.runners.map((r) => r.waitFor(position, timeoutMs)));
  }

  isReady(): boolean {
    return this.runners.every((r) => r.state === 'live');
  }

  status(): Record<string, string> {
    return Object.fromEntries(this.runners.map((r) => [r.projection.name, r.state]));
  }

  async rebuild(names?: readonly string[]): Promise<string[]> {
    const chosen = this.runners.filter((r) => names === undefined || names.includes(r.projection.name));
    for (const runner of chosen) await runner.rebuild();
    return chosen.map((r) => r.projection.name);
  }
}
