import { parseSse, type SseMessage } from './sse';

/** A body delivered in the given pieces, as a network delivers it. */
function body(...pieces: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const piece of pieces) controller.enqueue(encoder.encode(piece));
      controller.close();
    },
  });
}

async function messages(stream: ReadableStream<Uint8Array>): Promise<SseMessage[]> {
  const all: SseMessage[] = [];
  for await (const message of parseSse(stream)) all.push(message);
  return all;
}

describe('parseSse', () => {
  it('reads ids, event names and multi-line data across arbitrary chunk boundaries and line endings', async () => {
    const text = ': heartbeat\n\nid: a1\ndata: {"x":1}\n\nid: a2\r\nevent: gap\r\ndata: line one\r\ndata: line two\r\n\r\nid: a3\rdata:{"x":3}\r\r';
    const whole = await messages(body(text));
    expect(whole).toEqual([
      { id: 'a1', event: 'message', data: '{"x":1}' },
      { id: 'a2', event: 'gap', data: 'line one\nline two' },
      { id: 'a3', event: 'message', data: '{"x":3}' },
    ]);
    // Byte by byte (a CR LF split across chunks included), the same messages.
    expect(await messages(body(...text.split('')))).toEqual(whole);
  });

  it('drops a message without data and an unfinished last message', async () => {
    expect(await messages(body('id: 1\n\n', 'data: kept\n\n', 'data: cut off'))).toEqual([{ id: '1', event: 'message', data: 'kept' }]);
  });
});
