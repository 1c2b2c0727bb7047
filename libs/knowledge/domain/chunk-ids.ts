/**
 * The chunk ids of a content's attempt → their index, as a value: adding a batch or removing a
 * chunk makes a new one in O(batch) and leaves the old one as it was (states are shared by the
 * aggregate cache and must never change). A content of 24,000 chunks arrives in ~380 batches;
 * copying a Map per batch made folding its stream quadratic (1.3 s on one turn of the event loop
 * to delete such a content). Look-ups build the map once, on first use.
 */
export class ChunkIds {
  static readonly none = new ChunkIds(null, []);

  /** Built on first look-up; the chain behind it is then let go. */
  private built: Map<string, number> | null = null;

  private constructor(
    private parent: ChunkIds | null,
    /** Changes after the parent's, in order; a null index removes the id. */
    private readonly changes: readonly (readonly [string, number | null])[],
  ) {}

  with(chunks: readonly { readonly chunkId: string; readonly chunkIndex: number }[]): ChunkIds {
    return new ChunkIds(this, chunks.map((chunk) => [chunk.chunkId, chunk.chunkIndex] as const));
  }

  without(chunkId: string): ChunkIds {
    return new ChunkIds(this, [[chunkId, null]]);
  }

  has(chunkId: string): boolean {
    return this.map().has(chunkId);
  }

  get(chunkId: string): number | undefined {
    return this.map().get(chunkId);
  }

  get size(): number {
    return this.map().size;
  }

  /** Id and index of each chunk, in the order they were added. */
  entries(): IterableIterator<[string, number]> {
    return this.map().entries();
  }

  private map(): Map<string, number> {
    if (this.built !== null) return this.built;
    // From the nearest built ancestor (or the first), without recursion: chains are hundreds long.
    const chain: ChunkIds[] = [this];
    let node: ChunkIds | null = this.parent;
    while (node !== null && node.built === null) {
      chain.push(node);
      node = node.parent;
    }
    const map = new Map(node?.built ?? []);
    for (let i = chain.length - 1; i >= 0; i--) {
      for (const [id, index] of chain[i]?.changes ?? []) {
        if (index === null) map.delete(id);
        else map.set(id, index);
      }
    }
    this.built = map;
    this.parent = null;
    return map;
  }
}
