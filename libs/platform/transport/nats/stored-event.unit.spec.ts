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
  it("cuts the event's bytes out of the transport's packet, exactly as serialised, into bytes of its own", () => {
    const message = inSocketRead(encodeEvent(subject, event));
    const stored = storedEvent(message, subject);
    expect(stored).toBeInstanceOf(Uint8Array);
    expect(Buffer.from(stored as Uint8Array).toString('utf8')).toBe(JSON.stringify(event));
    // A copy: the socket read it came in is not kept alive (nor seen changing) through it.
    expect((stored as Uint8Array).buffer).not.toBe(message.buffer);
    message.fill(0x20);
    expect(Buffer.from(stored as Uint8Array).toString('utf8')).toBe(JSON.stringify(event));
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
