import type { Doc, DocumentStore, DocumentWrite, Filter } from '@lore/platform/documents/port';
import type { ProjectionContext } from './projection';

/**
 * Collects one batch's writes and lets later reads in the batch see them. A document written
 * again in the same batch keeps only its last write: an upsert replaces the whole document and
 * a delete removes it, so what came before for that document cannot show in the commit (a
 * `deleteMany` in between saw a state the last write overrides). A conversation's document
 * changes with every message: a batch replaying a thousand of its messages writes it once.
 * The writes kept stay in the order they were last made.
 */
export class BatchContext implements ProjectionContext {
  private readonly pending: Array<DocumentWrite | undefined> = [];
  /** Per document: where its last write sits in `pending`. */
  private readonly latest = new Map<string, number>();
  /**
   * Each document's state for reads in the batch: its last write, or what the store gave the
   * first read (a message's projection reads its conversation twice: its owner, then the
   * document it evolves). A read is the same object each time; projections build the next
   * document rather than change the one they read.
   */
  private readonly overlay = new Map<string, Doc | null>();

  constructor(private readonly documents: DocumentStore) {}

  /** The batch's writes, in order, for one commit. */
  get writes(): DocumentWrite[] {
    return this.pending.filter((write): write is DocumentWrite => write !== undefined);
  }

  get<T extends Doc>(collection: string, id: string): Promise<T | null> {
    const key = `${collection}\u0000${id}`;
    if (this.overlay.has(key)) return Promise.resolve((this.overlay.get(key) ?? null) as T | null);
    return this.documents
      .collection<T>(collection)
      .get(id)
      .then((doc) => {
        // A write made while the read was under way stands.
        if (!this.overlay.has(key)) this.overlay.set(key, doc);
        return doc;
      });
  }

  upsert(collection: string, doc: Doc): void {
    this.supersede(`${collection}\u0000${doc.id}`, doc, { collection, op: 'upsert', doc });
  }

  delete(collection: string, id: string): void {
    this.supersede(`${collection}\u0000${id}`, null, { collection, op: 'delete', id });
  }

  /** Reads of documents this removes may still see them within the same batch; projections delete last. */
  deleteMany(collection: string, filter: Filter): void {
    this.pending.push({ collection, op: 'deleteMany', filter });
  }

  /** Records the document's state for reads in the batch, and `write` in place of its earlier one. */
  private supersede(key: string, state: Doc | null, write: DocumentWrite): void {
    this.overlay.set(key, state);
    const earlier = this.latest.get(key);
    if (earlier !== undefined) this.pending[earlier] = undefined;
    this.latest.set(key, this.pending.length);
    this.pending.push(write);
  }
}
