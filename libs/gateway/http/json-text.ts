/**
 * Pure helpers for reading a JSON request body before it is parsed: strict UTF-8 decoding
 * and a bound on nesting depth. Positions are character offsets into the decoded text,
 * as in FastAPI's `json_invalid` errors (`loc: ["body", position]`).
 */

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });
const lenientUtf8 = new TextDecoder('utf-8');

export type DecodedJsonText = { readonly ok: true; readonly text: string } | { readonly ok: false; readonly position: number };

/** Decodes the body as UTF-8, refusing invalid byte sequences rather than replacing them. */
export function decodeJsonText(bytes: Uint8Array): DecodedJsonText {
  try {
    return { ok: true, text: strictUtf8.decode(bytes) };
  } catch {
    const offset = firstInvalidUtf8Offset(bytes);
    // The valid prefix decoded: the position counts characters, like a JSON syntax error's.
    return { ok: false, position: offset < 0 ? 0 : lenientUtf8.decode(bytes.subarray(0, offset)).length };
  }
}

/**
 * Byte offset of the first byte that starts an ill-formed UTF-8 sequence (WHATWG/Unicode
 * rules: no overlongs, no surrogates, nothing above U+10FFFF, no truncated sequences), or -1.
 */
export function firstInvalidUtf8Offset(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const lead = bytes[i] ?? 0;
    if (lead < 0x80) {
      i++;
      continue;
    }
    let continuation: number;
    let low = 0x80;
    let high = 0xbf;
    if (lead >= 0xc2 && lead <= 0xdf) continuation = 1;
    else if (lead >= 0xe0 && lead <= 0xef) {
      continuation = 2;
      if (lead === 0xe0) low = 0xa0;
      if (lead === 0xed) high = 0x9f;
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      continuation = 3;
      if (lead === 0xf0) low = 0x90;
      if (lead === 0xf4) high = 0x8f;
    } else return i;
    for (let k = 1; k <= continuation; k++) {
      const byte = bytes[i + k];
      if (byte === undefined || byte < low || byte > high) return i;
      low = 0x80;
      high = 0xbf;
    }
    i += continuation + 1;
  }
  return -1;
}


/** Where JSON.parse gave up: the position in its message, or the end for truncated input. */
export function jsonSyntaxErrorPosition(text: string): number {
  try {
    JSON.parse(text);
    return 0;
  } catch (error) {
    const message = error instanceof Error ? error.message : '';
    const position = /position (\d+)/.exec(message)?.[1];
    if (position !== undefined) return Number(position);
    return /end of (JSON )?input/i.test(message) ? text.length : 0;
  }
}
