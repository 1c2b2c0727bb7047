import { encodeEvent } from './nats-wire.codec';
import { storedEvent } from './stored-event';

const subject = 'lore.events.memory.memory.created.YWNtZQ';
const event = { type: 'memory.created', workspace_id: 'acme', text: 'thé ☕ "quoted" \u2028', list: [1, { nested: true }] };

/** A message as nats.js hands it over: a view into a larger socket read, at an offset. */
function inSocketRead(message: Uint8Array): Uint8Array {
  const read = Buffer.alloc(message.length + 64, 0x2a);
  read.set(message, 40);
  return read.subarray(40, 40 + message.length);
}

describe('storedEvent', () => {
  it("cuts the event's text out of the transport's packet, exactly as serialised (its UTF-8 bytes unchanged)", () => {
    const message = inSocketRead(encodeEvent(subject, event));
    const stored = storedEvent(message, subject);
    expect(stored).toBe(JSON.stringify(event));
    expect(Buffer.from(stored ?? '', 'utf8').equals(Buffer.from(JSON.stringify(event), 'utf8'))).toBe(true);
    // Its own text: the socket read it came in is not seen changing through it.
    message.fill(0x20);
    expect(stored).toBe(JSON.stringify(event));
  });

  it('reads messages of several subjects in turn, each by its own head', () => {
    const deleted = 'lore.events.memory.memory.deleted.YWNtZQ';
    for (const s of [subject, deleted, subject, deleted]) expect(storedEvent(inSocketRead(encodeEvent(s, { ...event, s })), s)).toBe(JSON.stringify({ ...event, s }));
    // A plain Uint8Array (not a Buffer) is read the same way.
    expect(storedEvent(new Uint8Array(encodeEvent(subject, event)), subject)).toBe(JSON.stringify(event));
  });

  it('decodes a packet of another shape in full, and skips one without an object event', () => {
    const reordered = Buffer.from(JSON.stringify({ data: event, pattern: subject }));
    expect(storedEvent(reordered, subject)).toBe(JSON.stringify(event));
    const notAnObject = Buffer.from(JSON.stringify({ pattern: subject, data: [1, 2] }));
    expect(storedEvent(notAnObject, subject)).toBeUndefined();
  });

  it('decodes a packet whose subject does not match its pattern, or is not plain ASCII', () => {
    const other = encodeEvent('lore.events.memory.memory.deleted.YWNtZQ', event);
    expect(storedEvent(other, subject)).toBe(JSON.stringify(event));
    const accented = 'lore.events.memory.memory.created.é';
    expect(storedEvent(encodeEvent(accented, event), accented)).toBe(JSON.stringify(event));
  });
});
