/**
 * A graph's points' stored vectors (vec0's float32 values, exactly), in memory by rowid, so
 * that the graph's hits and the hybrid completion are scored (`vector-distance.ts`) without a
 * vec0 point read each (~15 µs at 100k points). The graph (`hnsw-graph.ts`) keeps it in step:
 * `put` copies the vector in, a write (`stale`) or delete takes it out until applied. Its cost
 * is memory: 4 bytes per dimension per point (~1.5 KB at 384), beside hnswlib's own copy.
 *
 * Vectors live in blocks of BLOCK_VECTORS, so growing never copies what is held; a freed slot
 * is zeroed (no deleted vector stays in memory) and reused.
 */
const BLOCK_VECTORS = 1 << 14;
const ABSENT = -1;

export class VectorMirror {
  private slotOf = new Int32Array(1024).fill(ABSENT);
  private readonly blocks: Float32Array[] = [];
  private readonly free: number[] = [];
  private next = 0;
  private held = 0;

  constructor(readonly dimensions: number) {}

  get size(): number {
    return this.held;
  }

  has(rowid: number): boolean {
    return this.slotAt(rowid) !== ABSENT;
  }

  /** The stored vector (a view: valid until the rowid is next set or deleted), or null when not held. */
  get(rowid: number): Float32Array | null {
    const slot = this.slotAt(rowid);
    if (slot === ABSENT) return null;
    const block = this.blocks[Math.floor(slot / BLOCK_VECTORS)] as Float32Array;
    const offset = (slot % BLOCK_VECTORS) * this.dimensions;
    return block.subarray(offset, offset + this.dimensions);
  }

  set(rowid: number, vector: Float32Array): void {
    let slot = this.slotAt(rowid);
    if (slot === ABSENT) {
      slot = this.free.pop() ?? this.next++;
      if (Math.floor(slot / BLOCK_VECTORS) >= this.blocks.length) this.blocks.push(new Float32Array(BLOCK_VECTORS * this.dimensions));
      this.grow(rowid);
      this.slotOf[rowid] = slot;
      this.held++;
    }
    const block = this.blocks[Math.floor(slot / BLOCK_VECTORS)] as Float32Array;
    block.set(vector.subarray(0, this.dimensions), (slot % BLOCK_VECTORS) * this.dimensions);
  }

  delete(rowid: number): void {
    const slot = this.slotAt(rowid);
    if (slot === ABSENT) return;
    const block = this.blocks[Math.floor(slot / BLOCK_VECTORS)] as Float32Array;
    const offset = (slot % BLOCK_VECTORS) * this.dimensions;
    block.fill(0, offset, offset + this.dimensions);
    this.slotOf[rowid] = ABSENT;
    this.free.push(slot);
    this.held--;
  }

  private slotAt(rowid: number): number {
    return rowid >= 0 && rowid < this.slotOf.length ? (this.slotOf[rowid] as number) : ABSENT;
  }

  private grow(rowid: number): void {
    if (rowid < this.slotOf.length) return;
    let length = this.slotOf.length;
    while (length <= rowid) length *= 2;
    const grown = new Int32Array(length).fill(ABSENT);
    grown.set(this.slotOf);
    this.slotOf = grown;
  }
}
