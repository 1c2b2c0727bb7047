import { invalid } from '@lore/platform/kernel';
import mammoth from 'mammoth';

import { FILE_FIELD } from './file-format';
import { normaliseNewlines, tidyBlocks } from './utf8-text';

/**
 * Text of a Word document through mammoth's raw-text extraction, which writes each paragraph
 * followed by a blank line (so paragraphs stay separate blocks for chunking) and ignores
 * styling, images and comments. No title: mammoth does not read docProps/core.xml, and the
 * first paragraph is not reliably one.
 */
export async function docxText(bytes: Uint8Array, filename: string): Promise<string> {
  let raw: string;
  try {
    const result = await mammoth.extractRawText({ buffer: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) });
    raw = result.value;
  } catch (error) {
    // The input is the only variable here: a ZIP that does not unpack, a missing or malformed
    // word/document.xml. mammoth's messages ("Can't find end of central directory") are kept
    // as detail after a reason the uploader can act on.
    const detail = error instanceof Error ? `: ${error.message}` : '';
    throw invalid(FILE_FIELD, `"${filename}" could not be read as a DOCX document (it is corrupt or not a Word file)${detail}`);
  }
  return tidyBlocks(normaliseNewlines(raw));
}
