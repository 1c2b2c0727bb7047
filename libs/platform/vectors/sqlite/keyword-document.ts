/**
 * A document's keyword terms: the port's analysis (`keywordTerms`: `porter unicode61`), computed
 * faster (ASCII tokens skip Unicode normalisation, stems are memoised), counted per distinct
 * term; and the compact record of them stored per point (`vec_kwdocs_x.terms`), from which the
 * in-memory index is rebuilt at start without tokenising any text again:
 * varints (LEB128) of [length, count, (term id delta, tf) × count], term ids ascending.
 */
import { porterStem } from '@lore/platform/vectors/port';

const TOKEN = /[\p{L}\p{N}\p{Co}\p{M}]+/gu;
const MARKS = /\p{M}+/gu;
const ASCII = /^[\x20-\x7e]*$/;
const stems = new Map<string, string>();

/** `keywordTerms(text)`, term by term, in text order. */
export function forEachTerm(text: string, visit: (term: string) => void): void {
  for (const match of text.matchAll(TOKEN)) {
    const lower = match[0].toLowerCase();
    const folded = ASCII.test(lower) ? lower : lower.normalize('NFD').replace(MARKS, '').normalize('NFC');
    if (folded.length === 0) continue;
    let stem = stems.get(folded);
    if (stem === undefined) {
      stem = porterStem(folded);
      if (stems.size > 200_000) stems.clear();
      stems.set(folded, stem);
    }
    visit(stem);
  }
}

/** Term frequencies of a text and its length in tokens (what BM25 counts). */
export function termCounts(text: string): { readonly counts: Map<string, number>; readonly length: number } {
  const counts = new Map<string, number>();
  let length = 0;
  forEachTerm(text, (term) => {
    length++;
    counts.set(term, (counts.get(term) ?? 0) + 1);
  });
  return { counts, length };
}

export interface EncodedTerms {
  /** Term ids, ascending. */
  readonly ids: number[];
  readonly tfs: number[];
  readonly length: number;
}

export function encodeTerms(doc: EncodedTerms): Buffer {
  const bytes: number[] = [];
  const put = (value: number): void => {
    let v = value;
    while (v >= 0x80) {
      bytes.push((v & 0x7f) | 0x80);
      v = Math.floor(v / 128);
    }
    bytes.push(v);
  };
  put(doc.length);
  put(doc.ids.length);
  let previous = 0;
  doc.ids.forEach((id, i) => {
    put(id - previous);
    put(doc.tfs[i] ?? 0);
    previous = id;
  });
  return Buffer.from(bytes);
}

export function decodeTerms(blob: Uint8Array): EncodedTerms {
  let offset = 0;
  const get = (): number => {
    let value = 0;
    let scale = 1;
    for (;;) {
      const byte = blob[offset++] ?? 0;
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) return value;
      scale *= 128;
    }
  };
  const length = get();
  const count = get();
  const ids = new Array<number>(count);
  const tfs = new Array<number>(count);
  let previous = 0;
  for (let i = 0; i < count; i++) {
    previous += get();
    ids[i] = previous;
    tfs[i] = get();
  }
  return { ids, tfs, length };
}
