/**
 * The keyword index of one collection, in memory: its documents by ordinal (the order they
 * were added in), their lengths, the postings of every term they hold, and the collection's
 * own BM25 statistics (documents, total length, document frequencies), so that one
 * collection's ranking never depends on another's contents.
 *
 * A deleted document keeps its ordinal as a tombstone (rowid -1) and its postings until
 * `compact` rewrites the collection without them (KeywordIndex runs it once a quarter of the
 * ordinals are dead and the collection has been quiet, or at once past three quarters);
 * statistics always count live documents only.
 */
import type { DocTerms } from './keyword-document';
import { BLOCK, Postings } from './keyword-postings';

/** Blocks a list of `size` entries spans. */
const blocksOf = (size: number): number => Math.ceil(size / BLOCK);

/** A pass of `CollectionKeywords.pruneStep` over the lists as they were when it started. */
export interface PrunePass {
  readonly lists: ReadonlyMap<number, Postings>;
  readonly entries: Iterator<[number, Postings]>;
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
    for (let i = 0; i < doc.count; i++) {
      const id = doc.ids[i] ?? 0;
      let list = this.postings.get(id);
      if (!list) {
        list = new Postings();
        this.postings.set(id, list);
      }
      list.append(ordinal, doc.tfs[i] ?? 0, doc.length);
    }
  }

  /** Removes a live document; `doc` holds its term ids (their document frequencies drop). */
  remove(rowid: number, doc: DocTerms): void {
    const ordinal = this.ordinalOf.get(rowid);
    if (ordinal === undefined) return;
    this.ordinalOf.delete(rowid);
    this.rowids[ordinal] = -1;
    this.live--;
    this.totalLength -= this.lengths[ordinal] ?? 0;
    for (let i = 0; i < doc.count; i++) {
      const id = doc.ids[i] ?? 0;
      const list = this.postings.get(id);
      if (!list) continue;
      list.df--;
      if (list.df === 0) this.postings.delete(id);
    }
  }

  /** Whether a quarter of the ordinals are dead: compaction is worth its cost. */
  compactionDue(): boolean {
    return this.rowids.length >= 4 * BLOCK && this.live * 4 < this.rowids.length * 3;
  }

  /** Whether three quarters are: searches scan four entries for each live one, their lists cannot wait to be pruned. */
  compactionOverdue(): boolean {
    return this.rowids.length >= 4 * BLOCK && this.live * 4 < this.rowids.length;
  }

  /**
   * A pass that drops the dead entries from the postings lists, ordinals kept (`pruneStep`), so
   * that it can go a slice at a time while the collection changes: lists added meanwhile are
   * met or not, lists replaced by a compaction end the pass.
   */
  startPruning(): PrunePass {
    return { lists: this.postings, entries: this.postings.entries() };
  }

  /** Prunes lists until about `budget` entries were read; false once the pass is done. */
  pruneStep(pass: PrunePass, budget: number): boolean {
    if (pass.lists !== this.postings) return false;
    for (let read = 0; read < budget; ) {
      const next = pass.entries.next();
      if (next.done === true) return false;
      const [id, list] = next.value;
      read += list.size;
      let live = 0;
      for (let i = 0; i < list.size; i++) if ((this.rowids[list.docs[i] ?? 0] ?? -1) >= 0) live++;
      if (live === list.size || live === 0) continue;
      const docs = new Int32Array(live);
      const tfs = new Uint16Array(live);
      for (let i = 0, at = 0; i < list.size; i++) {
        const ordinal = list.docs[i] ?? 0;
        if ((this.rowids[ordinal] ?? -1) < 0) continue;
        docs[at] = ordinal;
        tfs[at++] = list.tfs[i] ?? 0;
      }
      this.postings.set(id, Postings.of(docs, tfs, this.lengths, new Uint16Array(blocksOf(live)), new Uint32Array(blocksOf(live))));
    }
    return true;
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
    // Each list rewritten into arrays of its exact size, its bounds computed in the same pass
    // (Postings.of): appending entry by entry regrew every list from four entries (24k documents: 66–73 → 20–26 ms).
    const postings = new Map<number, Postings>();
    for (const [id, list] of this.postings) {
      let live = 0;
      for (let i = 0; i < list.size; i++) if ((remap[list.docs[i] ?? 0] ?? -1) >= 0) live++;
      if (live === 0) continue;
      const docs = new Int32Array(live);
      const tfs = new Uint16Array(live);
      for (let i = 0, at = 0; i < list.size; i++) {
        const ordinal = remap[list.docs[i] ?? 0] ?? -1;
        if (ordinal < 0) continue;
        docs[at] = ordinal;
        tfs[at++] = list.tfs[i] ?? 0;
      }
      postings.set(id, Postings.of(docs, tfs, lengths, new Uint16Array(blocksOf(live)), new Uint32Array(blocksOf(live))));
    }
    this.rowids = rowids;
    this.lengths = lengths;
    this.postings = postings;
  }
}

/**
 * Builds a collection's index from its stored records at load, in two passes over typed
 * arrays: the documents' (term, tf) pairs are gathered in order, then placed per term by a
 * counting sort into one buffer per collection (each term's list a view of it), so loading
 * allocates a handful of arrays per term instead of growing each list entry by entry.
 */
export class CollectionBuilder {
  private readonly rowids: number[] = [];
  private readonly lengths: number[] = [];
  private termIds = new Int32Array(1024);
  private tfs = new Uint16Array(1024);
  private size = 0;
  /** Entries of each document: [starts[i], starts[i + 1]). */
  private starts: number[] = [0];

  add(rowid: number, doc: DocTerms): void {
    if (this.size + doc.count > this.termIds.length) {
      const capacity = Math.max(this.termIds.length * 2, this.size + doc.count);
      const termIds = new Int32Array(capacity);
      termIds.set(this.termIds.subarray(0, this.size));
      const tfs = new Uint16Array(capacity);
      tfs.set(this.tfs.subarray(0, this.size));
      this.termIds = termIds;
      this.tfs = tfs;
    }
    this.termIds.set(doc.ids.subarray(0, doc.count), this.size);
    for (let i = 0; i < doc.count; i++) this.tfs[this.size + i] = Math.min(doc.tfs[i] ?? 0, 0xffff);
    this.size += doc.count;
    this.starts.push(this.size);
    this.rowids.push(rowid);
    this.lengths.push(doc.length);
  }

  /** `counts`: scratch of at least (largest term id + 1) zeros, left zeroed. */
  finish(counts: Int32Array): CollectionKeywords {
    const keywords = new CollectionKeywords();
    keywords.rowids = this.rowids;
    keywords.lengths = this.lengths;
    this.rowids.forEach((rowid, ordinal) => keywords.ordinalOf.set(rowid, ordinal));
    keywords.live = this.rowids.length;
    keywords.totalLength = this.lengths.reduce((sum, length) => sum + length, 0);
    const { termIds, tfs, size, starts } = this;
    const terms: number[] = [];
    for (let i = 0; i < size; i++) {
      const id = termIds[i] ?? 0;
      if (counts[id] === 0) terms.push(id);
      counts[id] = (counts[id] ?? 0) + 1;
    }
    // Offsets of each term's entries and blocks in the shared buffers (reusing `counts` as the cursor).
    const offsets = new Map<number, [number, number, number]>();
    let entries = 0;
    let blocks = 0;
    for (const id of terms) {
      const n = counts[id] ?? 0;
      offsets.set(id, [entries, n, blocks]);
      counts[id] = entries;
      entries += n;
      blocks += blocksOf(n);
    }
    const docs = new Int32Array(entries);
    const frequencies = new Uint16Array(entries);
    for (let ordinal = 0; ordinal + 1 < starts.length; ordinal++) {
      for (let i = starts[ordinal] ?? 0; i < (starts[ordinal + 1] ?? 0); i++) {
        const id = termIds[i] ?? 0;
        const at = counts[id] ?? 0;
        docs[at] = ordinal;
        frequencies[at] = tfs[i] ?? 0;
        counts[id] = at + 1;
      }
    }
    const blockMaxTf = new Uint16Array(blocks);
    const blockMinLength = new Uint32Array(blocks);
    for (const [id, [start, n, block]] of offsets) {
      counts[id] = 0;
      const b = blocksOf(n);
      keywords.postings.set(
        id,
        Postings.of(docs.subarray(start, start + n), frequencies.subarray(start, start + n), this.lengths, blockMaxTf.subarray(block, block + b), blockMinLength.subarray(block, block + b)),
      );
    }
    return keywords;
  }
}
