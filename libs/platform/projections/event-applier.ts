import type { RecordedEvent } from '@lore/platform/kernel';
import type { DocumentStore, DocumentWrite } from '@lore/platform/documents/port';
import type { VectorStore, VectorWrite } from '@lore/platform/vectors/port';
import { isReactor, isVectorProjection, type Processor } from './projection';
import { BatchContext } from './batch-context';

export interface Checkpoint {
  readonly name: string;
  readonly value: string;
}

/**
 * How one processor applies events, whatever its kind, together with changes to its parked
 * records and (optionally) its checkpoint. Document projections and reactors commit all three
 * in one document-store write (one transaction on SQLite). Vector projections keep their
 * checkpoint in the vector store, so the parked records go first: a crash between the two
 * redelivers events already recorded as parked, which the runner then recognises and skips.
 */
export class EventApplier {
  constructor(
    private readonly processor: Processor,
    private readonly documents: DocumentStore,
    private readonly vectors: VectorStore | null,
  ) {}

  async apply(events: readonly RecordedEvent[], parked: readonly DocumentWrite[], checkpoint?: Checkpoint): Promise<void> {
    const processor = this.processor;
    if (isReactor(processor)) {
      if (events.length > 0) await processor.react(events);
      await this.documents.write(parked, checkpoint);
    } else if (isVectorProjection(processor)) {
      const vectors = this.vectorStore();
      const writes: VectorWrite[] = [];
      const context = { ensureIndex: (definition: Parameters<VectorStore['ensureIndex']>[0]) => vectors.ensureIndex(definition), write: (w: VectorWrite) => void writes.push(w) };
      for (const event of events) await processor.handle(event, context);
      if (parked.length > 0) await this.documents.write(parked);
      if (writes.length > 0 || checkpoint !== undefined) await vectors.write(writes, checkpoint);
    } else {
      const context = new BatchContext(this.documents);
      for (const event of events) await processor.handle(event, context);
      await this.documents.write([...context.writes, ...parked], checkpoint);
    }
  }

  async getCheckpoint(): Promise<string | null> {
    return (isVectorProjection(this.processor) ? this.vectorStore() : this.documents).getCheckpoint(this.processor.name);
  }

  /** Drops the read model (a reactor: its checkpoint). */
  async reset(): Promise<void> {
    const processor = this.processor;
    if (isVectorProjection(processor)) {
      const vectors = this.vectorStore();
      await vectors.reset((await vectors.listIndexes()).map((i) => i.name), processor.name);
    } else {
      await this.documents.reset(isReactor(processor) ? [] : processor.collections, processor.name);
    }
  }

  private vectorStore(): VectorStore {
    if (this.vectors === null) throw new Error(`${this.processor.name} has no vector store`);
    return this.vectors;
  }
}
