import type { RecordedEvent } from '@lore/platform/kernel';
import type { DocumentStore, DocumentWrite } from '@lore/platform/documents/port';
import type { VectorStore, VectorWrite } from '@lore/platform/vectors/port';
import { isReactor, isVectorProjection, type FeedCheckpoints, type Processor, type Reactor } from './projection';
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
    /** Where a reactor with `checkpointInFeed` keeps its checkpoint; null: in the document store like the others. */
    private readonly feedCheckpoints: FeedCheckpoints | null = null,
  ) {}

  async apply(events: readonly RecordedEvent[], parked: readonly DocumentWrite[], checkpoint?: Checkpoint): Promise<void> {
    const processor = this.processor;
    if (isReactor(processor)) {
      if (events.length > 0) await processor.react(events);
      const feed = this.feedOf(processor);
      if (feed === null) await this.documents.write(parked, checkpoint);
      else {
        // Parked records first, as for vector projections: a crash between the two redelivers
        // events already recorded as parked, which the runner recognises and skips.
        if (parked.length > 0) await this.documents.write(parked);
        if (checkpoint !== undefined) await feed.saveCheckpoint(checkpoint.name, checkpoint.value);
      }
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
    const processor = this.processor;
    const feed = isReactor(processor) ? this.feedOf(processor) : null;
    // A data directory from before checkpoints moved to the feed resumes from the document store's.
    if (feed !== null) return (await feed.getCheckpoint(processor.name)) ?? this.documents.getCheckpoint(processor.name);
    return (isVectorProjection(processor) ? this.vectorStore() : this.documents).getCheckpoint(processor.name);
  }

  /** Drops the read model (a reactor: its checkpoint). */
  async reset(): Promise<void> {
    const processor = this.processor;
    if (isVectorProjection(processor)) {
      const vectors = this.vectorStore();
      await vectors.reset((await vectors.listIndexes()).map((i) => i.name), processor.name);
    } else {
      await this.documents.reset(isReactor(processor) ? [] : processor.collections, processor.name);
      const feed = isReactor(processor) ? this.feedOf(processor) : null;
      if (feed !== null) await feed.deleteCheckpoint(processor.name);
    }
  }

  private feedOf(reactor: Reactor): FeedCheckpoints | null {
    return reactor.checkpointInFeed === true ? this.feedCheckpoints : null;
  }

  private vectorStore(): VectorStore {
    if (this.vectors === null) throw new Error(`${this.processor.name} has no vector store`);
    return this.vectors;
  }
}
