import { decodeIncoming } from './nats-wire.codec';

const PATTERN_HEAD = '{"pattern":"';
const DATA_HEAD = '","data":{';
const CLOSING_BRACE = 0x7d;
/** Printable ASCII without the characters JSON escapes: written into JSON as it is, one byte a character. */
const PLAIN_SUBJECT = /^[\x20-\x21\x23-\x5b\x5d-\x7e]*$/;

/**
 * The integration event inside a message of the events stream, as its UTF-8 bytes. The
 * transport stores an event as `{"pattern":"<subject>","data":<event>}` (nats-wire.codec's
 * encodeEvent, `data` last), so the event is the bytes between that head and the last brace,
 * exactly as they were serialised: copied out (a few hundred bytes; a view would keep the
 * whole 64 KiB socket read it came in alive while a slow client's page waits), neither
 * decoded nor parsed. A message without that head and ending (a stock Nest client's emit with
 * its keys in another order) is decoded in full; one without an object event is skipped.
 * Only Lore's transport publishes to these subjects: the bytes between are not validated.
 */
export function storedEvent(data: Uint8Array, subject: string): string | Uint8Array | undefined {
  // The head is `{"pattern":` and the subject as JSON: the subject itself between quotes when
  // it is plain ASCII (ours always are; any other is decoded), compared as one Latin-1 string.
  const head = `${PATTERN_HEAD}${subject}${DATA_HEAD}`;
  const end = data.length - 1;
  if (data[end] === CLOSING_BRACE && data[end - 1] === CLOSING_BRACE && PLAIN_SUBJECT.test(subject) && latin1(data, head.length) === head) {
    const from = head.length - 1;
    return Buffer.copyBytesFrom(data, from, end - from);
  }
  const event = decodeIncoming(data, subject).data;
  return typeof event === 'object' && event !== null && !Array.isArray(event) ? JSON.stringify(event) : undefined;
}

/** The first `length` bytes as Latin-1 text (one character a byte). */
function latin1(data: Uint8Array, length: number): string {
  const bytes = Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  return bytes.toString('latin1', 0, length);
}
