import { invalid } from '@lore/platform/kernel';

/**
 * Which reader an uploaded file goes to. Decided from what the client tells us (the name, then
 * the declared MIME type) before what the bytes look like: the name is what the user chose and
 * the MIME type is often generic (`application/octet-stream`), while sniffing only recognises
 * the two binary formats. Binary formats are then cross-checked against their magic bytes, so a
 * `.pdf` that is not a PDF is rejected instead of being read as garbage.
 */
export type FileFormat = 'text' | 'markdown' | 'html' | 'json' | 'csv' | 'pdf' | 'docx';

export interface UploadedFile {
  readonly fileName: string;
  readonly mimeType?: string | null;
  readonly bytes: Uint8Array;
}

/**
 * Where errors point: the file being read, in the extraction's own terms. A caller that got
 * the file from a request maps it to where the file came in (the gateway: the multipart field,
 * `["body","file"]`, through the route's `issueLocations`).
 */
export const FILE_FIELD = ['file'] as const;

const SUPPORTED = 'txt, md, html, json, csv, pdf, docx';

const BY_EXTENSION: Readonly<Record<string, FileFormat>> = {
  txt: 'text',
  text: 'text',
  log: 'text',
  md: 'markdown',
  markdown: 'markdown',
  html: 'html',
  htm: 'html',
  json: 'json',
  csv: 'csv',
  pdf: 'pdf',
  docx: 'docx',
};

const BY_MIME: Readonly<Record<string, FileFormat>> = {
  'text/plain': 'text',
  'text/markdown': 'markdown',
  'text/x-markdown': 'markdown',
  'text/html': 'html',
  'application/xhtml+xml': 'html',
  'application/json': 'json',
  'text/json': 'json',
  'text/csv': 'csv',
  'application/csv': 'csv',
  'application/pdf': 'pdf',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
};

/** The canonical MIME type reported for a format (the client's declared type may be generic or wrong). */
export const MIME_OF: Readonly<Record<FileFormat, string>> = {
  text: 'text/plain',
  markdown: 'text/markdown',
  html: 'text/html',
  json: 'application/json',
  csv: 'text/csv',
  pdf: 'application/pdf',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
};

export function detectFormat(file: UploadedFile): FileFormat {
  const extension = extensionOf(file.fileName);
  const format =
    (extension === null ? undefined : BY_EXTENSION[extension]) ?? fromMime(file.mimeType) ?? sniff(file.bytes);
  if (format === undefined) {
    const what = extension === null ? `"${file.fileName}" (no known extension or type)` : `".${extension}"`;
    throw invalid(FILE_FIELD, `Unsupported file type ${what}; supported: ${SUPPORTED}`, 'value_error');
  }
  // Cross-check the binary formats: their readers would otherwise fail with an obscure error.
  if (format === 'pdf' && !isPdf(file.bytes)) {
    throw invalid(FILE_FIELD, `"${file.fileName}" is not a PDF file (it does not start with %PDF-)`);
  }
  if (format === 'docx' && !isDocx(file.bytes)) {
    throw invalid(FILE_FIELD, `"${file.fileName}" is not a DOCX file (not a ZIP archive with word/document.xml)`);
  }
  return format;
}

function extensionOf(filename: string): string | null {
  const base = filename.split(/[\\/]/).pop() ?? '';
  const dot = base.lastIndexOf('.');
  return dot <= 0 || dot === base.length - 1 ? null : base.slice(dot + 1).toLowerCase();
}

function fromMime(mimeType: string | null | undefined): FileFormat | undefined {
  if (!mimeType) return undefined;
  const essence = mimeType.split(';')[0]?.trim().toLowerCase() ?? '';
  // Structured-syntax suffix (RFC 6839): application/ld+json and friends are JSON.
  return BY_MIME[essence] ?? (essence.endsWith('+json') ? 'json' : undefined);
}

function sniff(bytes: Uint8Array): FileFormat | undefined {
  if (isPdf(bytes)) return 'pdf';
  if (isDocx(bytes)) return 'docx';
  return undefined;
}

const PDF_MAGIC = Buffer.from('%PDF-', 'latin1');

/** PDF readers (and PDF.js) accept the header anywhere in the first 1024 bytes (junk before it happens). */
function isPdf(bytes: Uint8Array): boolean {
  return Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 1024)).indexOf(PDF_MAGIC) !== -1;
}

const ZIP_MAGIC = [0x50, 0x4b, 0x03, 0x04]; // "PK\3\4", a local file header
const DOCX_PART = Buffer.from('word/document.xml', 'latin1');

/**
 * A DOCX is a ZIP holding word/document.xml. Entry names are stored uncompressed (in each local
 * header and the central directory), so a byte search finds it without unzipping; other ZIP-based
 * formats (xlsx, odt, jar) are thereby told apart.
 */
function isDocx(bytes: Uint8Array): boolean {
  if (bytes.byteLength < 4 || ZIP_MAGIC.some((b, i) => bytes[i] !== b)) return false;
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).indexOf(DOCX_PART) !== -1;
}
