import { invalid } from '@lore/platform/kernel';

import { csvText } from './csv-text';
import { docxText } from './docx-text';
import { checkTextSize, DEFAULT_EXTRACTION_LIMITS, MAX_TITLE_CHARS, type ExtractionLimits } from './extraction-limits';
import { detectFormat, FILE_FIELD, MIME_OF } from './file-format';
import type { FileFormat, UploadedFile } from './file-format';
import { checkHtmlDepth } from './html-depth';
import { htmlText } from './html-text';
import { jsonText } from './json-text';
import { pdfText } from './pdf-text';
import { decodeUtf8 } from './utf8-text';
import { checkZip } from './zip-directory';

export { detectFormat } from './file-format';
export type { FileFormat, UploadedFile } from './file-format';

/**
 * Plain text of a file, ready for chunking. Every failure the uploader can fix (unsupported
 * type, a file that is not what its name says, invalid UTF-8 or JSON, a corrupt or encrypted
 * PDF, a DOCX that does not unpack, no text at all, a file over one of `limits`) is an AppError
 * with code 'validation' located at the file (FILE_FIELD, `["file"]`). This runs the readers in
 * the calling thread: production code calls it through the extraction pool
 * (extraction-pool.ts), which adds the limits on time and memory.
 */
export interface ExtractedText {
  readonly text: string;
  readonly format: FileFormat;
  /** The canonical MIME type of `format`, not the one the client declared. */
  readonly mimeType: string;
  /** From <title> (html) or the document metadata (pdf); null when absent or not applicable. */
  readonly title: string | null;
  /** pdf pages; null otherwise */
  readonly pages: number | null;
}

export async function extractText(file: UploadedFile, limits: ExtractionLimits = DEFAULT_EXTRACTION_LIMITS): Promise<ExtractedText> {
  const format = detectFormat(file);
  const { text, title = null, pages = null } = await read(format, file, limits);
  checkTextSize(text.length, limits, file.fileName);
  if (text.trim() === '') {
    // An empty result would be indexed as nothing; say why instead. For a PDF that almost
    // always means a scan: its pages are images, and we do no OCR.
    throw invalid(
      FILE_FIELD,
      format === 'pdf'
        ? `"${file.fileName}" has no extractable text (it is probably scanned images; OCR is not supported)`
        : `"${file.fileName}" contains no text`,
    );
  }
  return { text, format, mimeType: MIME_OF[format], title: title === null ? null : cutTitle(title), pages };
}

/** At most MAX_TITLE_CHARS, never ending in half a surrogate pair. */
function cutTitle(title: string): string {
  if (title.length <= MAX_TITLE_CHARS) return title;
  const cut = title.slice(0, MAX_TITLE_CHARS);
  return /[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut;
}

interface Read {
  readonly text: string;
  readonly title?: string | null;
  readonly pages?: number;
}

async function read(format: FileFormat, { fileName: filename, bytes }: UploadedFile, limits: ExtractionLimits): Promise<Read> {
  switch (format) {
    case 'text':
    case 'markdown':
      // Kept as written (markdown syntax is meaningful to the chunker and to readers).
      return { text: decodeUtf8(bytes, filename) };
    case 'html': {
      const html = decodeUtf8(bytes, filename);
      checkHtmlDepth(html, limits, filename);
      return htmlText(html);
    }
    case 'json':
      return { text: jsonText(decodeUtf8(bytes, filename), filename, limits) };
    case 'csv':
      return { text: csvText(decodeUtf8(bytes, filename), filename, limits) };
    case 'pdf':
      return pdfText(bytes, filename, limits);
    case 'docx':
      checkZip(bytes, limits, filename);
      return { text: await docxText(bytes, filename) };
  }
}
