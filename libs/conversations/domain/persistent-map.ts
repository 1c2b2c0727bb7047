/**
 * An immutable map whose `set` is O(1) when applied to the newest version, which is how a
 * decider's state is built: each event evolves the latest state. A conversation holds all of
 * its messages, so copying a map per event would make folding a long conversation quadratic.
 *
 * Versions share one store of entries stamped with the version that wrote them; a version
 * sees the entries stamped at or below its own number. Setting on an older version (a fork,
 * as when a command is decided on a state that is no longer the newest) copies what that
 * version sees first, so every version keeps answering as it did: observably immutable.
 */
interface Shared<K, V> {
  readonly entries: Map<K, Array<{ readonly version: number; readonly value: V }>>;
  tip: number;
}

export class PersistentMap<K, V> {
  private constructor(
    private readonly shared: Shared<K, V>,
    private readonly version: number,
  ) {}

  static empty<K, V>(): PersistentMap<K, V> {
    return new PersistentMap<K, V>({ entries: new Map(), tip: 0 }, 0);
  }

  get(key: K): V | undefined {
    const history = this.shared.entries.get(key);
    if (history === undefined) return undefined;
    for (let i = history.length - 1; i >= 0; i--) {
      const entry = history[i];
      if (entry !== undefined && entry.version <= this.version) return entry.value;
    }
    return undefined;
  }

  has(key: K): boolean {
    return this.get(key) !== undefined;
  }

  set(key: K, value: V): PersistentMap<K, V> {
    const shared = this.version === this.shared.tip ? this.shared : this.copy();
    const version = shared.tip + 1;
    shared.tip = version;
    const history = shared.entries.get(key);
    if (history === undefined) shared.entries.set(key, [{ version, value }]);
    else history.push({ version, value });
    return new PersistentMap(shared, version);
  }

  /** What this version sees, as a fresh store of its own. */
  private copy(): Shared<K, V> {
    const entries = new Map<K, Array<{ version: number; value: V }>>();
    for (const key of this.shared.entries.keys()) {
      const value = this.get(key);
      if (value !== undefined) entries.set(key, [{ version: 0, value }]);
    }
    return { entries, tip: 0 };
  }
}
