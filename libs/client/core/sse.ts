/** One message of a `text/event-stream` (the fields Lore sends: `id`, `event`, `data`). */
export interface SseMessage {
  readonly id: string | undefined;
  readonly event: string;
  readonly data: string;
}

/**
 * Parses a Server-Sent Events body as the HTML standard defines it: lines end with CR, LF or
 * CRLF, a blank line dispatches the message, `:` lines are comments (Lore's heartbeats), a
 * message without data is dropped. Works on any WHATWG stream (browsers, Node ≥ 18).
 */
export async function* parseSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseMessage, void, undefined> {
  const decoder = new TextDecoder();
  const reader = body.getReader();
  let buffer = '';
  let data: string[] = [];
  let event = '';
  let id: string | undefined;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (!done) buffer += decoder.decode(value, { stream: true });
      for (;;) {
        const end = buffer.search(/\r\n|\r|\n/);
        // A lone CR at the end may be the first half of CRLF: wait for more, unless the body has ended.
        if (end === -1 || (buffer[end] === '\r' && end === buffer.length - 1 && !done)) break;
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + (buffer.startsWith('\r\n', end) ? 2 : 1));
        if (line === '') {
          if (data.length > 0) yield { id, event: event || 'message', data: data.join('\n') };
          data = [];
          event = '';
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon === -1 ? line : line.slice(0, colon);
        const value = colon === -1 ? '' : line.slice(colon + (line[colon + 1] === ' ' ? 2 : 1));
        if (field === 'data') data.push(value);
        else if (field === 'event') event = value;
        else if (field === 'id' && !value.includes('\0')) id = value;
      }
      if (done) return;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}
