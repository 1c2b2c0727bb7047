/**
 * Progress of a long run on stderr. On a terminal, one bar redrawn in place
 * (`[#####-----] 1234/5000 memory`); elsewhere (CI, a log file), where redrawing would leave a
 * line per redraw, a line per step and at most one progress line every two seconds.
 */
const BAR_WIDTH = 30;
/** Redraws faster than the eye are wasted writes to the terminal. */
const REDRAW_MS = 100;
const LOG_EVERY_MS = 2000;

export interface ProgressStream {
  write(text: string): unknown;
  readonly isTTY?: boolean;
}

export class Progress {
  private label = '';
  private total = 0;
  private done = 0;
  private started = 0;
  private shown = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly stream: ProgressStream,
    private readonly interactive: boolean,
    private readonly now: () => number = Date.now,
  ) {}

  /** A terminal, and not CI (whose logs capture a terminal's output but cannot redraw). */
  static for(stream: ProgressStream, env: NodeJS.ProcessEnv, now?: () => number): Progress {
    const ci = env.CI !== undefined && env.CI !== '' && env.CI !== 'false' && env.CI !== '0';
    return new Progress(stream, stream.isTTY === true && !ci, now);
  }

  start(label: string, total: number): void {
    this.label = label;
    this.total = total;
    this.done = 0;
    this.started = this.now();
    this.shown = Number.NEGATIVE_INFINITY;
    if (this.interactive) this.draw();
    else this.stream.write(`${label}: ${total} data keys to re-wrap\n`);
  }

  update(done: number): void {
    this.done = done;
    const at = this.now();
    if (at - this.shown < (this.interactive ? REDRAW_MS : LOG_EVERY_MS)) return;
    if (this.interactive) this.draw();
    else if (at - this.started >= LOG_EVERY_MS) {
      this.shown = at;
      this.stream.write(`${this.label}: ${done}/${this.total}\n`);
    }
  }

  finish(done: number): void {
    this.done = done;
    const seconds = ((this.now() - this.started) / 1000).toFixed(1);
    if (this.interactive) {
      this.draw();
      this.stream.write('\n');
    } else {
      this.stream.write(`${this.label}: ${done} data keys re-wrapped in ${seconds} s\n`);
    }
    this.label = '';
  }

  /** Leaves the bar's line, so that a message written next does not land inside it. */
  interrupt(): void {
    if (this.interactive && this.label !== '') this.stream.write('\n');
    this.label = '';
  }

  private draw(): void {
    this.shown = this.now();
    const filled = this.total === 0 ? BAR_WIDTH : Math.min(BAR_WIDTH, Math.round((this.done / this.total) * BAR_WIDTH));
    // \r and erase-to-end-of-line: a shorter line must not leave the tail of a longer one.
    this.stream.write(`\r[${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}] ${this.done}/${this.total} ${this.label}\x1b[K`);
  }
}
