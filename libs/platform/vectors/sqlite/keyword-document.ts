/**
 * A document's keyword tokens: the port's analysis (`keywordTokens`, then `porterStem`: FTS5's
 * `porter unicode61`), computed faster (ASCII texts skip the Unicode regex and normalisation,
 * stems are memoised); and the compact record of them stored per point (`vec_kwdocs_x.terms`), from which the
 * in-memory index is rebuilt at start without tokenising any text again:
 * varints (LEB128) of [length, count, (term id delta, tf) × count], term ids ascending.
 */
import { porterStem } from '@lore/platform/vectors/port';

const TOKEN = /[\p{L}\p{N}\p{Co}\p{M}]+/gu;
const MARKS = /\p{M}+/gu;
const ASCII = /^[\x20-\x7e]*$/;
const ASCII_TEXT = /^[\x00-\x7f]*$/;
const stems = new Map<string, string>();

export function stemOf(folded: string): string {
  let stem = stems.get(folded);
  if (stem === undefined) {
    stem = porterStem(folded);
    if (stems.size > 200_000) stems.clear();
    stems.set(folded, stem);
  }
  return stem;
}

/**
 * `keywordTokens(text)`, token by token (folded, before stemming), in text order. An ASCII text
 * takes a scan of its own: in ASCII, the port's token characters are exactly [A-Za-z0-9] and
 * folding is lower-casing.
 */
export function forEachToken(text: string, visit: (folded: string) => void): void {
  if (ASCII_TEXT.test(text)) {
    const lower = text.toLowerCase();
    let start = -1;
    for (let i = 0; i <= lower.length; i++) {
      const c = i < lower.length ? lower.charCodeAt(i) : 0;
      if ((c >= 97 && c <= 122) || (c >= 48 && c <= 57)) {
        if (start < 0) start = i;
      } else if (start >= 0) {
        visit(lower.slice(start, i));
        start = -1;
      }
    }
    return;
  }
  for (const match of text.matchAll(TOKEN)) {
    const lower = match[0].toLowerCase();
    const folded = ASCII.test(lower) ? lower : lower.normalize('NFD').replace(MARKS, '').normalize('NFC');
    if (folded.length > 0) visit(folded);
  }
}

/** One document's terms: `count` term ids (ascending) with their frequencies, and its length in tokens. */
export interface DocTerms {
  ids: Int32Array;
  tfs: Int32Array;
  count: number;
  length: number;
}

export function encodeTerms(doc: DocTerms): Buffer {
  const bytes = Buffer.allocUnsafe(10 * (2 + 2 * doc.count));
  let offset = 0;
  const put = (value: number): void => {
    let v = value;
    while (v >= 0x80) {
      bytes[offset++] = (v & 0x7f) | 0x80;
      v = Math.floor(v / 128);
    }
    bytes[offset++] = v;
  };
  put(doc.length);
  put(doc.count);
  let previous = 0;
  for (let i = 0; i < doc.count; i++) {
    const id = doc.ids[i] ?? 0;
    put(id - previous);
    put(doc.tfs[i] ?? 0);
    previous = id;
  }
  return Buffer.from(bytes.subarray(0, offset));
}

/** Decodes into `into` (reused: its arrays grow as needed), so that loading allocates nothing per document. */
export function decodeTerms(blob: Uint8Array, into: DocTerms): DocTerms {
  let offset = 0;
  const get = (): number => {
    let byte = blob[offset++] ?? 0;
    if (byte < 0x80) return byte;
    let value = byte & 0x7f;
    let scale = 128;
    for (;;) {
      byte = blob[offset++] ?? 0;
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) return value;
      scale *= 128;
    }
  };
  into.length = get();
  const count = get();
  if (into.ids.length < count) {
    into.ids = new Int32Array(count * 2);
    into.tfs = new Int32Array(count * 2);
  }
  into.count = count;
  let previous = 0;
  for (let i = 0; i < count; i++) {
    previous += get();
    into.ids[i] = previous;
    into.tfs[i] = get();
  }
  return into;
}

export function emptyDocTerms(): DocTerms {
  return { ids: new Int32Array(256), tfs: new Int32Array(256), count: 0, length: 0 };
}
