import { AppError, invalid } from '@lore/platform/kernel';
import { extractText, getDocumentProxy, getMeta } from 'unpdf';

import { FILE_FIELD } from './file-format';
import { checkTextSize, DEFAULT_EXTRACTION_LIMITS, limitExceeded, type ExtractionLimits } from './extraction-limits';
import { tidyBlocks } from './utf8-text';

export interface PdfText {
  readonly text: string;
  readonly title: string | null;
  readonly pages: number;
}

/**
 * Text of a PDF through unpdf (PDF.js without a worker or canvas). Pages are extracted
 * separately and joined with a blank line, so a page break is also a paragraph break and never
 * glues the last word of one page to the first of the next. There is no OCR: a PDF whose pages
 * carry no text (a scan) is left to the caller to reject, with `text` empty.
 *
 * Note: unpdf's CommonJS build loads PDF.js with a dynamic `import()`, which works in Node but
 * not inside jest's module sandbox; the specs hand it the module (spec-support.ts).
 */
export async function pdfText(bytes: Uint8Array, filename: string, limits: ExtractionLimits = DEFAULT_EXTRACTION_LIMITS): Promise<PdfText> {
  // A copy: PDF.js takes over (detaches) the buffer it is given, and the caller's is not ours.
  const pdf = await getDocumentProxy(new Uint8Array(bytes), { verbosity: 0 }).catch((error: unknown) => {
    throw readError(error, filename);
  });
  try {
    // The page count is in the document's catalogue: known before any page is parsed.
    if (pdf.numPages > limits.maxPdfPages) throw limitExceeded(filename, `has more than ${limits.maxPdfPages} pages`, 'maxPdfPages');
    const { totalPages, text } = await extractText(pdf, { mergePages: false });
    const body = text
      .map((page) => tidyBlocks(page.replace(/\r\n?/g, '\n').replace(/\u0000/g, '')))
      .filter((page) => page !== '')
      .join('\n\n');
    checkTextSize(body.length, limits, filename);
    return { text: body, title: await pdfTitle(pdf), pages: totalPages };
  } catch (error) {
    throw readError(error, filename);
  } finally {
    await pdf.destroy(); // frees PDF.js's parsed objects and font caches
  }
}

/** The title from the document information dictionary, else from XMP metadata (dc:title). */
async function pdfTitle(pdf: Parameters<typeof getMeta>[0]): Promise<string | null> {
  const { info, metadata } = await getMeta(pdf);
  const fromInfo: unknown = (info as Record<string, unknown>)['Title'];
  // Without an XMP stream unpdf returns `{}` in place of PDF.js's Metadata object.
  const xmp = metadata as Partial<typeof metadata> | null;
  const fromXmp: unknown = typeof xmp?.get === 'function' ? xmp.get('dc:title') : undefined;
  for (const candidate of [fromInfo, fromXmp]) {
    if (typeof candidate === 'string' && candidate.trim() !== '') return candidate.replace(/\s+/g, ' ').trim();
  }
  return null;
}

/**
 * PDF.js reports unreadable input with named exceptions; those are the uploader's problem
 * (422 with a reason). Anything else is our bug or environment and passes through unchanged.
 */
function readError(error: unknown, filename: string): unknown {
  // Duck-typed rather than `instanceof Error`: PDF.js may live in another realm (see spec-support.ts).
  if (error instanceof AppError || typeof error !== 'object' || error === null) return error;
  const { name, message } = error as { name?: unknown; message?: unknown };
  switch (name) {
    case 'PasswordException':
      return invalid(FILE_FIELD, `"${filename}" is an encrypted (password-protected) PDF; upload an unprotected copy`);
    case 'InvalidPDFException':
    case 'FormatError':
    case 'UnknownErrorException':
      return invalid(FILE_FIELD, `"${filename}" could not be read as a PDF (it is corrupt or truncated): ${String(message)}`);
    default:
      return error;
  }
}
