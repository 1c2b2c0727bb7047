import { invalid } from '@lore/platform/kernel';
import { checkTextSize, MAX_TITLE_CHARS, type ExtractionLimits } from './extraction-limits';
import { FILE_FIELD, MIME_OF, type FileFormat } from './file-format';

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

/** What a format's reader found in a file. */
export interface ReadText {
  readonly text: string;
  readonly title?: string | null;
  readonly pages?: number;
}

/** A reader's text as the result of extracting `fileName`: over the text limit or empty, a validation error at the file. */
export function extracted(format: FileFormat, { text, title = null, pages }: ReadText, fileName: string, limits: ExtractionLimits): ExtractedText {
  checkTextSize(text.length, limits, fileName);
  if (text.trim() === '') {
    // An empty result would be indexed as nothing; say why instead. For a PDF that almost
    // always means a scan: its pages are images, and we do no OCR.
    throw invalid(
      FILE_FIELD,
      format === 'pdf' ? `"${fileName}" has no extractable text (it is probably scanned images; OCR is not supported)` : `"${fileName}" contains no text`,
    );
  }
  return { text, format, mimeType: MIME_OF[format], title: title === null ? null : cutTitle(title), pages: pages ?? null };
}

/** At most MAX_TITLE_CHARS, never ending in half a surrogate pair. */
function cutTitle(title: string): string {
  if (title.length <= MAX_TITLE_CHARS) return title;
  const cut = title.slice(0, MAX_TITLE_CHARS);
  return /[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut;
}

