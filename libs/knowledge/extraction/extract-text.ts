import { csvText } from './csv-text';
import { docxText } from './docx-text';
import { DEFAULT_EXTRACTION_LIMITS, type ExtractionLimits } from './extraction-limits';
import { extracted, type ExtractedText, type ReadText } from './extracted-text';
import { detectFormat } from './file-format';
import type { FileFormat, UploadedFile } from './file-format';
import { checkHtmlDepth } from './html-depth';
import { htmlText } from './html-text';
import { jsonText } from './json-text';
import { pdfText } from './pdf-text';
import { decodeUtf8 } from './utf8-text';
import { checkZip } from './zip-directory';

export { detectFormat } from './file-format';
export type { FileFormat, UploadedFile } from './file-format';
export type { ExtractedText } from './extracted-text';

/**
 * Plain text of a file, ready for chunking. Every failure the uploader can fix (unsupported
 * type, a file that is not what its name says, invalid UTF-8 or JSON, a corrupt or encrypted
 * PDF, a DOCX that does not unpack, no text at all, a file over one of `limits`) is an AppError
 * with code 'validation' located at the file (FILE_FIELD, `["file"]`). This runs the readers in
 * the calling thread: production code calls it through the extraction pool
 * (extraction-pool.ts), which adds the limits on time and memory.
 */
export async function extractText(file: UploadedFile, limits: ExtractionLimits = DEFAULT_EXTRACTION_LIMITS): Promise<ExtractedText> {
  const format = detectFormat(file);
  return extracted(format, await read(format, file, limits), file.fileName, limits);
}

async function read(format: FileFormat, { fileName: filename, bytes }: UploadedFile, limits: ExtractionLimits): Promise<ReadText> {
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
