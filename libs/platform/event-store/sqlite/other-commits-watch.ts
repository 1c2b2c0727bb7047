/**
 * Notices commits another process (an operator's tool on the same file) makes to a SQLite
 * event store: one query of the log's head every `intervalMs` while started, instead of a page
 * read per subscription. Positions past the head it last looked at that the store's own commits
 * do not account for (kept as ranges of positions, merged when adjacent) are someone else's:
 * then `onOthers` runs. So does a failing read of the head, so that each subscription meets the
 * failure in its own read and stops on it, as on any failed read. A batch the store's writer
 * thread committed but has not settled yet looks like someone else's: a wake to spare.
 */
export class OtherCommitsWatch {
  private timer: NodeJS.Timeout | null = null;
  private watchedHead = -1n;
  private own: Array<{ from: bigint; to: bigint }> = [];

  constructor(
    private readonly head: () => bigint,
    private readonly intervalMs: number,
    private readonly onOthers: () => void,
  ) {}

  /**
   * Watches from the head as it is now: call it before a subscription's first read (which
   * covers everything up to that head). Throws, and stays stopped, when the head cannot be read.
   */
  start(): void {
    if (this.timer !== null) return;
    this.watchedHead = this.head();
    // A live subscription alone must not keep the process running.
    this.timer = setInterval(() => this.look(), this.intervalMs).unref();
  }

  stop(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    this.own = [];
  }

  /**
   * Positions `last - count + 1 … last` are the store's own: `count` is what the append stored
   * (0 for a retry, whose answer names positions around other writers' events).
   */
  noteOwnCommit(last: bigint, count: number): void {
    if (this.timer === null || count === 0 || last <= this.watchedHead) return;
    const from = last - BigInt(count) + 1n;
    const previous = this.own.at(-1);
    if (previous !== undefined && previous.to + 1n === from) previous.to = last;
    else this.own.push({ from, to: last });
  }

  private look(): void {
    let head: bigint;
    try {
      head = this.head();
    } catch {
      this.onOthers();
      return;
    }
    if (head <= this.watchedHead) return;
    let own = 0n;
    for (const { from, to } of this.own) {
      const [low, high] = [from > this.watchedHead ? from : this.watchedHead + 1n, to < head ? to : head];
      if (high >= low) own += high - low + 1n;
    }
    const others = own < head - this.watchedHead;
    this.watchedHead = head;
    this.own = this.own.filter(({ to }) => to > head);
    if (others) this.onOthers();
  }
}
