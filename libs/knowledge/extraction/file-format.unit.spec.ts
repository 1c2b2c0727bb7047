import { AppError } from '@lore/platform/kernel';

import { detectFormat } from './file-format';

const text = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'utf8'));
const PDF = text('%PDF-1.4\n');
/** Just enough of a ZIP for the sniffer: a local file header magic and an entry name. */
const zipWith = (entry: string): Uint8Array => new Uint8Array([0x50, 0x4b, 0x03, 0x04, ...text(`....${entry}....`)]);

function failure(file: Parameters<typeof detectFormat>[0]): AppError {
  try {
    detectFormat(file);
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected detectFormat to throw');
}

describe('detectFormat', () => {
  it.each([
    ['a.txt', 'text'],
    ['a.text', 'text'],
    ['server.LOG', 'text'],
    ['a.md', 'markdown'],
    ['a.markdown', 'markdown'],
    ['a.html', 'html'],
    ['a.HTM', 'html'],
    ['a.json', 'json'],
    ['a.csv', 'csv'],
  ])('maps %s to %s by extension', (filename, format) => {
    expect(detectFormat({ fileName: filename, bytes: text('x') })).toBe(format);
  });

  it('prefers the extension to a declared MIME type', () => {
    expect(detectFormat({ fileName: 'notes.md', mimeType: 'text/plain', bytes: text('# x') })).toBe('markdown');
  });

  it('falls back to the MIME type, ignoring parameters and case, and reads +json', () => {
    expect(detectFormat({ fileName: 'upload', mimeType: 'Text/CSV; charset=utf-8', bytes: text('a,b') })).toBe('csv');
    expect(detectFormat({ fileName: 'blob.bin', mimeType: 'application/ld+json', bytes: text('{}') })).toBe('json');
  });

  it('sniffs PDF and DOCX when name and type say nothing', () => {
    expect(detectFormat({ fileName: 'upload', mimeType: 'application/octet-stream', bytes: PDF })).toBe('pdf');
    expect(detectFormat({ fileName: 'upload', bytes: zipWith('word/document.xml') })).toBe('docx');
  });

  it('rejects an unsupported extension, listing what is supported', () => {
    const error = failure({ fileName: 'archive.tar.xyz', bytes: text('x') });
    expect(error.code).toBe('validation');
    expect(error.issues).toEqual([
      { loc: ['file'], msg: 'Unsupported file type ".xyz"; supported: txt, md, html, json, csv, pdf, docx', type: 'value_error' },
    ]);
  });

  it('rejects a ZIP that is not a Word document (e.g. a spreadsheet)', () => {
    expect(failure({ fileName: 'upload', bytes: zipWith('xl/workbook.xml') }).message).toMatch(/^Unsupported file type "upload"/);
  });

  it('rejects a .pdf or application/pdf whose bytes are not a PDF', () => {
    expect(failure({ fileName: 'report.pdf', bytes: text('hello') }).message).toMatch(/"report.pdf" is not a PDF file/);
    expect(failure({ fileName: 'upload', mimeType: 'application/pdf', bytes: text('hello') }).message).toMatch(/is not a PDF/);
  });

  it('rejects a .docx that is not a ZIP with word/document.xml', () => {
    expect(failure({ fileName: 'a.docx', bytes: text('hello') }).message).toMatch(/"a.docx" is not a DOCX file/);
    expect(failure({ fileName: 'a.docx', bytes: zipWith('xl/workbook.xml') }).message).toMatch(/is not a DOCX file/);
  });
});
