import type { LoreUnderTest } from './e2e-client';

/** One parsed Server-Sent Event, or a comment line (heartbeat). */
export interface SseMessage {
  readonly id?: string;
  readonly event?: string;
  readonly data?: string;
  readonly comment?: string;
}

/**
 * A minimal `text/event-stream` reader over fetch, as a client without an EventSource would
 * write it: it parses fields per the WHATWG rules the server relies on (id, event, data lines,
 * comments) and lets a test wait for messages.
 */
export class SseConnection {
  readonly messages: SseMessage[] = [];
  private waiters: Array<() => void> = [];
  private ended = false;

  private constructor(
    readonly status: number,
    readonly headers: Headers,
    private readonly controller: AbortController,
  ) {}

  static async open(lore: LoreUnderTest, path: string, options: { token: string; lastEventId?: string; headers?: Record<string, string> }): Promise<SseConnection> {
    const controller = new AbortController();
    const headers: Record<string, string> = { authorization: `Bearer ${options.token}`, accept: 'text/event-stream', ...options.headers };
    if (options.lastEventId !== undefined) headers['last-event-id'] = options.lastEventId;
    const response = await fetch(`${lore.url}${path}`, { headers, signal: controller.signal });
    const connection = new SseConnection(response.status, response.headers, controller);
    if (response.body === null || !(response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
      connection.body = await response.text();
      connection.finish();
      return connection;
    }
    void connection.read(response.body);
    return connection;
  }

  /** The response body when it was not an event stream (an error reply). */
  body = '';

  /** Messages with data (events), not comments. */
  events(): SseMessage[] {
    return this.messages.filter((m) => m.data !== undefined);
  }

  async waitFor(predicate: (messages: SseMessage[]) => boolean, timeoutMs = 10_000): Promise<SseMessage[]> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate(this.messages)) {
      if (this.ended) throw new Error(`stream ended after ${JSON.stringify(this.messages)}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting; got ${JSON.stringify(this.messages)}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return this.messages;
  }

  waitForEvents(count: number, timeoutMs?: number): Promise<SseMessage[]> {
    return this.waitFor((messages) => messages.filter((m) => m.data !== undefined).length >= count, timeoutMs).then(() => this.events());
  }

  close(): void {
    this.controller.abort();
  }

  private async read(body: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    let buffer = '';
    let current: { id?: string; event?: string; data?: string[] } = {};
    try {
      for await (const chunk of body) {
        buffer += decoder.decode(chunk, { stream: true });
        let newline: number;
        while ((newline = buffer.indexOf('\n')) >= 0) {
          const line = buffer.slice(0, newline).replace(/\r$/, '');
          buffer = buffer.slice(newline + 1);
          if (line === '') {
            if (current.data !== undefined || current.event !== undefined || current.id !== undefined) {
              this.push({ ...(current.id === undefined ? {} : { id: current.id }), ...(current.event === undefined ? {} : { event: current.event }), ...(current.data === undefined ? {} : { data: current.data.join('\n') }) });
            }
            current = {};
          } else if (line.startsWith(':')) {
            this.push({ comment: line.slice(1).trim() });
          } else {
            const colon = line.indexOf(':');
            const field = colon < 0 ? line : line.slice(0, colon);
            const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
            if (field === 'id') current.id = value;
            else if (field === 'event') current.event = value;
            else if (field === 'data') (current.data ??= []).push(value);
          }
        }
      }
    } catch {
      // Aborted by close(), or the server ended the stream.
    }
    this.finish();
  }

  private push(message: SseMessage): void {
    this.messages.push(message);
    this.wake();
  }

  private finish(): void {
    this.ended = true;
    this.wake();
  }

  private wake(): void {
    for (const waiter of this.waiters.splice(0)) waiter();
  }

  get isEnded(): boolean {
    return this.ended;
  }
}
