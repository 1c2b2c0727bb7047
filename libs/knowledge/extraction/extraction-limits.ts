import { invalid, type AppError } from '@lore/platform/kernel';

import { FILE_FIELD } from './file-format';

/**
 * What one uploaded file may cost to read, checked inside the reader process before or
 * while a reader works (KNOWLEDGE_EXTRACT_* in the knowledge configuration). Plain numbers:
 * this object is copied to the reader processes.
 */
export interface ExtractionLimits {
  /** HTML element nesting and JSON array/object nesting. */
  readonly maxDepth: number;
  /** Sum of a ZIP's (DOCX's) uncompressed entry sizes. */
  readonly maxUnzippedBytes: number;
  readonly maxZipEntries: number;
  /** Uncompressed ÷ compressed size of one entry larger than ZIP_RATIO_FLOOR_BYTES. */
  readonly maxZipRatio: number;
  readonly maxCsvRows: number;
  readonly maxCsvColumns: number;
  readonly maxPdfPages: number;
  readonly maxTextChars: number;
}

/** The defaults of the configuration (README, Configuration), for callers outside the gateway such as tests. */
export const DEFAULT_EXTRACTION_LIMITS: ExtractionLimits = {
  maxDepth: 512,
  maxUnzippedBytes: 64 * 1024 * 1024,
  maxZipEntries: 10_000,
  maxZipRatio: 100,
  maxCsvRows: 1_000_000,
  maxCsvColumns: 10_000,
  maxPdfPages: 5_000,
  maxTextChars: 32_000_000,
};

/**
 * A document's title is cut to this (the longest name a content may have): it names the content
 * when the upload gives no name, and it crosses from the reader beside the text.
 */
export const MAX_TITLE_CHARS = 255;

/** The environment variable that sets each limit, named in the error so that an operator knows what to raise. */
export const LIMIT_VARIABLES = {
  maxDepth: 'KNOWLEDGE_EXTRACT_MAX_DEPTH',
  maxUnzippedBytes: 'KNOWLEDGE_EXTRACT_MAX_UNZIPPED_BYTES',
  maxZipEntries: 'KNOWLEDGE_EXTRACT_MAX_ZIP_ENTRIES',
  maxZipRatio: 'KNOWLEDGE_EXTRACT_MAX_ZIP_RATIO',
  maxCsvRows: 'KNOWLEDGE_EXTRACT_MAX_CSV_ROWS',
  maxCsvColumns: 'KNOWLEDGE_EXTRACT_MAX_CSV_COLUMNS',
  maxPdfPages: 'KNOWLEDGE_EXTRACT_MAX_PDF_PAGES',
  maxTextChars: 'KNOWLEDGE_EXTRACT_MAX_TEXT_CHARS',
  timeoutMs: 'KNOWLEDGE_EXTRACT_TIMEOUT_MS',
  maxMemoryMb: 'KNOWLEDGE_EXTRACT_MAX_MEMORY_MB',
} as const;

/** The 422 type of every exceeded extraction limit, so that clients can tell it from a malformed file. */
export const LIMIT_EXCEEDED = 'limit_exceeded';

/**
 * The 422 for a file over a limit: `"<filename>" <what> (<VARIABLE>)`, for example
 * `"page.html" nests its HTML deeper than 512 levels (KNOWLEDGE_EXTRACT_MAX_DEPTH)`.
 */
export function limitExceeded(filename: string, what: string, limit: keyof typeof LIMIT_VARIABLES): AppError {
  return invalid(FILE_FIELD, `"${filename}" ${what} (${LIMIT_VARIABLES[limit]})`, LIMIT_EXCEEDED);
}

/** Throws once extracted text outgrows `maxTextChars`; readers call it as their output grows. */
export function checkTextSize(chars: number, limits: ExtractionLimits, filename: string): void {
  if (chars > limits.maxTextChars) {
    throw limitExceeded(filename, `yields more than ${limits.maxTextChars} characters of text`, 'maxTextChars');
  }
}
