import JSZip from 'jszip';

import { extractText } from './extract-text';
import { loadPdfjsForJest, rejection, utf8 } from './spec-support';

/** PDF and DOCX, with fixtures built here in code: no binary files in the repository. */

/**
 * A minimal valid PDF: one page per entry of `pages` (an empty string draws a line and no text,
 * like a scan), Helvetica, an optional Info title. The xref offsets are computed from the
 * objects as written. `encrypted` adds a Standard security handler whose /U entry matches no
 * password, so PDF.js must ask for one.
 */
function buildPdf(pages: string[], opts: { title?: string; encrypted?: boolean } = {}): Uint8Array {
  const objects: string[] = [];
  const add = (body: string): number => objects.push(body);
  add('<< /Type /Catalog /Pages 2 0 R >>');
  add(''); // the page tree, filled in once the kids are known
  add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>');
  const kids = pages.map((text) => {
    const ops = text === '' ? '72 700 m 300 700 l S' : `BT /F1 24 Tf 72 720 Td (${text}) Tj ET`;
    const content = add(`<< /Length ${ops.length} >>\nstream\n${ops}\nendstream`);
    return add(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents ${content} 0 R >>`,
    );
  });
  objects[1] = `<< /Type /Pages /Kids [${kids.map((k) => `${k} 0 R`).join(' ')}] /Count ${kids.length} >>`;
  const info = opts.title === undefined ? null : add(`<< /Title (${opts.title}) >>`);
  const hex32 = (byte: string): string => `<${byte.repeat(32)}>`;
  const encrypt = opts.encrypted ? add(`<< /Filter /Standard /V 1 /R 2 /O ${hex32('AB')} /U ${hex32('CD')} /P -4 >>`) : null;

  let pdf = '%PDF-1.4\n';
  const offsets = objects.map((body, i) => {
    const at = pdf.length;
    pdf += `${i + 1} 0 obj\n${body}\nendobj\n`;
    return at;
  });
  const xrefAt = pdf.length;
  pdf += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  pdf += offsets.map((at) => `${String(at).padStart(10, '0')} 00000 n \n`).join('');
  const extra = [
    info === null ? '' : ` /Info ${info} 0 R`,
    encrypt === null ? '' : ` /Encrypt ${encrypt} 0 R /ID [${hex32('01').slice(0, 34)}> ${hex32('01').slice(0, 34)}>]`,
  ].join('');
  pdf += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R${extra} >>\nstartxref\n${xrefAt}\n%%EOF\n`;
  return new Uint8Array(Buffer.from(pdf, 'latin1'));
}

/** A minimal DOCX: content types, the package relationship and a document with these paragraphs. */
async function buildDocx(paragraphs: string[]): Promise<Uint8Array> {
  const zip = new JSZip();
  const body = paragraphs.map((p) => `<w:p><w:r><w:t>${p}</w:t></w:r></w:p>`).join('');
  zip.file(
    'word/document.xml',
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${body}</w:body></w:document>`,
  );
  zip.file(
    '[Content_Types].xml',
    '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
  );
  zip.file(
    '_rels/.rels',
    '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>',
  );
  return zip.generateAsync({ type: 'uint8array', compression: 'DEFLATE' });
}

beforeAll(loadPdfjsForJest);

describe('extractText: pdf', () => {
  it('extracts the text of each page, separated by a blank line, with page count and title', async () => {
    const bytes = buildPdf(['Hello PDF world', 'Second page'], { title: 'Fixture Title' });
    await expect(extractText({ fileName: 'hello.pdf', bytes })).resolves.toEqual({
      text: 'Hello PDF world\n\nSecond page',
      format: 'pdf',
      mimeType: 'application/pdf',
      title: 'Fixture Title',
      pages: 2,
    });
  });

  it("leaves the caller's bytes intact (PDF.js detaches the buffer it is given)", async () => {
    // A Node Buffer, not pooled: a Uint8Array of the realm PDF.js runs in, which it would take over.
    const pdf = buildPdf(['Hello PDF world']);
    const bytes = Buffer.alloc(pdf.length);
    bytes.set(pdf);
    await extractText({ fileName: 'hello.pdf', bytes });
    expect(bytes.byteLength).toBe(pdf.length);
  });

  it('recognises a PDF by its bytes when neither name nor type says so', async () => {
    const result = await extractText({ fileName: 'upload', mimeType: 'application/octet-stream', bytes: buildPdf(['Hello PDF world']) });
    expect(result).toMatchObject({ format: 'pdf', title: null, pages: 1, text: 'Hello PDF world' });
  });

  it('rejects a PDF without extractable text (a scan) and says there is no OCR', async () => {
    const error = await rejection(extractText({ fileName: 'scan.pdf', bytes: buildPdf(['', '']) }));
    expect(error.message).toMatch(/no extractable text.*OCR/);
  });

  it('rejects a password-protected PDF with a clear message', async () => {
    const error = await rejection(extractText({ fileName: 'secret.pdf', bytes: buildPdf(['Hello PDF world'], { encrypted: true }) }));
    expect(error.message).toMatch(/encrypted \(password-protected\)/);
  });

  it('rejects a corrupt PDF', async () => {
    const error = await rejection(extractText({ fileName: 'bad.pdf', bytes: utf8('%PDF-1.7\nthis is not a pdf body') }));
    expect(error.message).toMatch(/could not be read as a PDF/);
  });

  it('rejects a .pdf that is not a PDF at all', async () => {
    const error = await rejection(extractText({ fileName: 'fake.pdf', bytes: utf8('just some text') }));
    expect(error.message).toMatch(/"fake.pdf" is not a PDF file/);
  });
});

describe('extractText: docx', () => {
  it('extracts paragraphs separated by a blank line', async () => {
    const bytes = await buildDocx(['First paragraph', 'Second paragraph']);
    await expect(extractText({ fileName: 'letter.docx', bytes })).resolves.toEqual({
      text: 'First paragraph\n\nSecond paragraph',
      format: 'docx',
      mimeType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      title: null,
      pages: null,
    });
  });

  it('rejects a corrupt DOCX (a truncated ZIP)', async () => {
    const bytes = await buildDocx(['First paragraph', 'Second paragraph']);
    const error = await rejection(extractText({ fileName: 'letter.docx', bytes: bytes.slice(0, Math.floor(bytes.length * 0.6)) }));
    expect(error.message).toMatch(/could not be read as a DOCX document/);
  });
});
