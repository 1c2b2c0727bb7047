import type { DocumentStore } from '@lore/platform/documents/port';
import type { VectorWrite } from '@lore/platform/vectors/port';
import type { ContextDefinition } from '@lore/platform/cqrs';
import { withContextDeps } from './recording-stores';

/**
 * Deletions of chosen documents wait at it until released, over the real store: a purge held
 * midway, to see what reads and other workspaces' writes do meanwhile.
 */
export class DeletionGate {
  private ids: ReadonlySet<string> = new Set();
  private opened: Promise<void> = Promise.resolve();
  private open: () => void = () => undefined;
  private store: DocumentStore | null = null;

  constructor(private readonly collection: string) {}

  /** From now on, a write deleting any of these documents waits for `release`. */
  hold(ids: Iterable<string>): void {
    this.ids = new Set(ids);
    this.opened = new Promise((resolve) => (this.open = resolve));
  }

  release(): void {
    this.open();
  }

  /** The context with this gate on its store's deletions. */
  around<C>(definition: ContextDefinition<C>): ContextDefinition<C> {
    return withContextDeps(definition, (deps) => {
      const write = deps.documents.write.bind(deps.documents);
      deps.documents.write = async (writes, checkpoint) => {
        if (writes.some((w) => w.collection === this.collection && w.op === 'delete' && this.ids.has(w.id))) await this.opened;
        return write(writes, checkpoint);
      };
      this.store = deps.documents;
      return deps;
    });
  }

  /** That context's document store, once started (its read models, as they are). */
  get documents(): DocumentStore {
    if (this.store === null) throw new Error('the context behind the gate is not started');
    return this.store;
  }
}

/**
 * The context with `before` run ahead of every write of its vector store, over the real store:
 * a test's gate that holds or refuses chosen deletions (a purge held midway, or failing).
 */
export function withVectorWriteGate<C>(definition: ContextDefinition<C>, before: (writes: readonly VectorWrite[]) => Promise<void>): ContextDefinition<C> {
  return withContextDeps(definition, (deps) => {
    const write = deps.vectors.write.bind(deps.vectors);
    deps.vectors.write = async (writes, checkpoint) => {
      await before(writes);
      return write(writes, checkpoint);
    };
    return deps;
  });
}
