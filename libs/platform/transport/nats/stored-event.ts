import { decodeIncoming } from './nats-wire.codec';

const PATTERN_HEAD = '{"pattern":"';
const DATA_HEAD = '","data":{';
const CLOSING_BRACE = 0x7d;
/** Printable ASCII without the characters JSON escapes: written into JSON as it is, one byte a character. */
const PLAIN_SUBJECT = /^[\x20-\x21\x23-\x5b\x5d-\x7e]*$/;

/** The head of the last subject seen, as bytes (undefined: not plain, decoded in full): a reader's messages share a few subjects. */
let lastSubject: string | undefined;
let lastHead: Buffer | undefined;

/**
 * The integration event inside a message of the events stream, as its JSON text. The
 * transport stores an event as `{"pattern":"<subject>","data":<event>}` (nats-wire.codec's
 * encodeEvent, `data` last), so the event is the bytes between that head and the last brace,
 * exactly as they were serialised: decoded from UTF-8 into a string of its own (valid UTF-8
 * from the transport's own encoder, so the text encodes back to the same bytes), never
 * parsed. A string, not a copy of the bytes: an ArrayBuffer per event cost a catch-up more
 * than everything else the gateway does with it, and a view would keep the whole 64 KiB
 * socket read it came in alive while a slow client's page waits. A message without that
 * head and ending (a stock Nest client's emit with its keys in another order) is decoded in
 * full; one without an object event is skipped. Only Lore's transport publishes to these
 * subjects: the bytes between are not validated.
 */
export function storedEvent(data: Uint8Array, subject: string): string | undefined {
  if (subject !== lastSubject) {
    lastSubject = subject;
    // The subject between quotes when it is plain ASCII (ours always are; any other is decoded).
    lastHead = PLAIN_SUBJECT.test(subject) ? Buffer.from(`${PATTERN_HEAD}${subject}${DATA_HEAD}`, 'latin1') : undefined;
  }
  const head = lastHead;
  const end = data.length - 1;
  if (head !== undefined && data.length > head.length && data[end] === CLOSING_BRACE && data[end - 1] === CLOSING_BRACE && head.compare(data, 0, head.length) === 0) {
    const bytes = Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    return bytes.toString('utf8', head.length - 1, end);
  }
  const event = decodeIncoming(data, subject).data;
  return typeof event === 'object' && event !== null && !Array.isArray(event) ? JSON.stringify(event) : undefined;
}
