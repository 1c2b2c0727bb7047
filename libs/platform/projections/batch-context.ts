import type { Doc, DocumentStore, DocumentWrite, Filter } from '@lore/platform/documents/port';
import type { ProjectionContext } from './projection';

/** Collects one batch's writes and lets later reads in the batch see them. */
export class BatchContext implements ProjectionContext {
  readonly writes: DocumentWrite[] = [];
  private readonly overlay = new Map<string, Doc | null>();

  constructor(private readonly documents: DocumentStore) {}

  async get<T extends Doc>(collection: string, id: string): Promise<T | null> {
    const key = `${collection}\u0000${id}`;
    if (this.overlay.has(key)) return (this.overlay.get(key) ?? null) as T | null;
    return this.documents.collection<T>(collection).get(id);
  }

  upsert(collection: string, doc: Doc): void {
    this.overlay.set(`${collection}\u0000${doc.id}`, doc);
    this.writes.push({ collection, op: 'upsert', doc });
  }

  delete(collection: string, id: string): void {
    this.overlay.set(`${collection}\u0000${id}`, null);
    this.writes.push({ collection, op: 'delete', id });
  }

  /** Reads of documents this removes may still see them within the same batch; projections delete last. */
  deleteMany(collection: string, filter: Filter): void {
    this.writes.push({ collection, op: 'deleteMany', filter });
  }
}
