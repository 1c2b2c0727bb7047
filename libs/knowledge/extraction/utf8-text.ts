import { invalid } from '@lore/platform/kernel';

import { FILE_FIELD } from './file-format';

/**
 * Decodes a text upload. We accept UTF-8 only and say so, rather than guess a legacy encoding
 * and index mojibake: `fatal: true` makes invalid sequences an error instead of U+FFFD, and
 * the default `ignoreBOM: false` strips a leading byte-order mark. Line endings become LF so
 * that chunking and offsets do not depend on the uploader's platform.
 */
const decoder = new TextDecoder('utf-8', { fatal: true });

export function decodeUtf8(bytes: Uint8Array, filename: string): string {
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    throw invalid(FILE_FIELD, `"${filename}" is not valid UTF-8 text; save it as UTF-8 and upload it again`);
  }
  // NUL is valid UTF-8 but never occurs in real text: this is a binary file with a text name.
  if (text.includes('\u0000')) {
    throw invalid(FILE_FIELD, `"${filename}" looks like a binary file (it contains NUL bytes), not text`);
  }
  return normaliseNewlines(text);
}

export function normaliseNewlines(text: string): string {
  return text.replace(/\r\n?/g, '\n');
}

/** Collapses the blank runs that extractors leave behind: at most one blank line between blocks. */
export function tidyBlocks(text: string): string {
  return text
    .split('\n')
    .map((line) => line.replace(/[ \t\u00a0]+/g, ' ').trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
