import type { Socket } from 'node:net';

/** The reader's end of the channel: the service starts it with a pipe there (stdio [ignore, ignore, stderr, channel]). */
export const READER_FD = 3;

export interface JsonLinesOptions {
  /**
   * A line (one message) longer than these is a breach: nothing past it is buffered or parsed.
   * The first holds for a line that is a JSON string (its first character a quote), the second
   * for any other.
   */
  readonly maxStringLineChars: number;
  readonly maxOtherLineChars: number;
  readonly onMessage: (message: unknown) => void;
  /** The other end sent what is not a message: the channel stops reading. */
  readonly onBreach: (what: string) => void;
}

/**
 * Messages between the service and a reader process: one JSON value per line, over a pipe of
 * their own (the reader's fd 3). Not Node's IPC channel: the service must take whatever a
 * reader sends without harm, and Node's channel trusts its peer. Over it a reader could
 * crash the service with an internal message (`{cmd: 'NODE_HANDLE_ACK'}` throws an assertion
 * there), pass it sockets and servers it then holds open, or make it buffer a message of
 * gigabytes before anyone looks at it. Here a line is bounded before it is kept, parsed by
 * JSON.parse (which only ever throws), and carries nothing but JSON.
 */
export class JsonLines {
  /** The current line's characters received so far (pieces of it, joined when it ends). */
  private pending: string[] = [];
  private pendingChars = 0;
  /** The current line's bound, known from its first character. */
  private lineCap = 0;
  private broken = false;

  constructor(
    private readonly socket: Socket,
    private readonly options: JsonLinesOptions,
  ) {
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => this.receive(chunk));
  }

  /** Sends `message`; `done` once it is written (or failed: the other end is gone). */
  send(message: unknown, done: (error?: Error | null) => void): void {
    if (this.socket.destroyed || !this.socket.writable) return done(new Error('the channel is closed'));
    this.socket.write(`${JSON.stringify(message)}\n`, done);
  }

  private receive(chunk: string): void {
    let from = 0;
    for (let newline = chunk.indexOf('\n'); newline >= 0 && !this.broken; newline = chunk.indexOf('\n', from)) {
      if (!this.keep(chunk.slice(from, newline))) return;
      const line = this.pending.join('');
      this.pending = [];
      this.pendingChars = 0;
      from = newline + 1;
      let message: unknown;
      try {
        message = JSON.parse(line);
      } catch {
        return this.breach('a malformed message');
      }
      this.options.onMessage(message);
    }
    if (!this.broken) this.keep(chunk.slice(from));
  }

  /** Adds to the current line, unless that makes it too long (a breach). */
  private keep(piece: string): boolean {
    if (this.pendingChars === 0 && piece.length > 0) {
      this.lineCap = piece.startsWith('"') ? this.options.maxStringLineChars : this.options.maxOtherLineChars;
    }
    this.pendingChars += piece.length;
    if (this.pendingChars > this.lineCap) {
      this.breach(`a message over ${this.lineCap} characters`);
      return false;
    }
    if (piece.length > 0) this.pending.push(piece);
    return true;
  }

  private breach(what: string): void {
    this.broken = true;
    this.pending = [];
    this.socket.pause();
    this.options.onBreach(what);
  }
}
