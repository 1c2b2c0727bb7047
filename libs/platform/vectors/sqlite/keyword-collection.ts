/**
 * The keyword index of one collection, in memory: its documents by ordinal (the order they
 * were added in), their lengths, the postings of every term they hold, and the collection's
 * own BM25 statistics (documents, total length, document frequencies), so that one
 * collection's ranking never depends on another's contents.
 *
 * A deleted document keeps its ordinal as a tombstone (rowid -1) and its postings until
 * `compact` rewrites the collection without them (once a quarter of the ordinals are dead);
 * statistics always count live documents only.
 */
import { BLOCK, Postings } from './keyword-postings';

/** One document's terms: parallel arrays of term ids and frequencies, and its length in tokens. */
export interface DocTerms {
  readonly ids: readonly number[];
  readonly tfs: readonly number[];
  readonly length: number;
}

export class CollectionKeywords {
  /** Ordinal → point rowid, -1 once deleted. */
  rowids: number[] = [];
  lengths: number[] = [];
  readonly ordinalOf = new Map<number, number>();
  postings = new Map<number, Postings>();
  live = 0;
  totalLength = 0;

  get avgdl(): number {
    return this.live > 0 ? this.totalLength / this.live : 0;
  }

  has(rowid: number): boolean {
    return this.ordinalOf.has(rowid);
  }

  add(rowid: number, doc: DocTerms): void {
    const ordinal = this.rowids.length;
    this.rowids.push(rowid);
    this.lengths.push(doc.length);
    this.ordinalOf.set(rowid, ordinal);
    this.live++;
    this.totalLength += doc.length;
    doc.ids.forEach((id, i) => {
      let list = this.postings.get(id);
      if (!list) {
        list = new Postings();
        this.postings.set(id, list);
      }
      list.append(ordinal, doc.tfs[i] ?? 0, doc.length);
    });
  }

  /** Removes a live document; `ids` are its term ids (their document frequencies drop). */
  remove(rowid: number, ids: readonly number[]): void {
    const ordinal = this.ordinalOf.get(rowid);
    if (ordinal === undefined) return;
    this.ordinalOf.delete(rowid);
    this.rowids[ordinal] = -1;
    this.live--;
    this.totalLength -= this.lengths[ordinal] ?? 0;
    for (const id of ids) {
      const list = this.postings.get(id);
      if (!list) continue;
      list.df--;
      if (list.df === 0) this.postings.delete(id);
    }
    if (this.rowids.length >= 4 * BLOCK && this.live * 4 < this.rowids.length * 3) this.compact();
  }

  /** Renumbers the live documents densely and rewrites every postings list without the dead. */
  compact(): void {
    const remap = new Int32Array(this.rowids.length).fill(-1);
    const rowids: number[] = [];
    const lengths: number[] = [];
    this.rowids.forEach((rowid, ordinal) => {
      if (rowid < 0) return;
      remap[ordinal] = rowids.length;
      this.ordinalOf.set(rowid, rowids.length);
      rowids.push(rowid);
      lengths.push(this.lengths[ordinal] ?? 0);
    });
    const postings = new Map<number, Postings>();
    for (const [id, list] of this.postings) {
      const next = new Postings();
      for (let i = 0; i < list.size; i++) {
        const ordinal = remap[list.docs[i] ?? 0] ?? -1;
        if (ordinal >= 0) next.append(ordinal, list.tfs[i] ?? 0, lengths[ordinal] ?? 0);
      }
      if (next.size > 0) postings.set(id, next);
    }
    this.rowids = rowids;
    this.lengths = lengths;
    this.postings = postings;
  }
}
